/**
 * Builders for the pure forensic engine: plain SessionRecord / RoutingEntry / Snapshot values,
 * no SQLite and no files. Defaults describe an ordinary live telegram row with one message.
 */
import type {Cell, RoutingEntry, RuleSet, SessionRecord, Snapshot} from '../../source/forensics/types.js';

/** 2023-11-14 22:13:20 UTC: a plain, in-window epoch. */
export const T0 = 1_700_000_000;

/** `agent:<ns>:<platform>:dm:<chat>` as Hermes builds DM keys. */
export function dmKey(chat = '42', platform = 'telegram', ns = 'main'): string {
	return `agent:${ns}:${platform}:dm:${chat}`;
}

function plainEpoch(cell: Cell): number | null {
	return typeof cell === 'number' && Number.isFinite(cell) && cell >= 0 && cell <= 4_200_000_000 ? cell : null;
}

/**
 * A session row. Defaults: source 'telegram', every identity column NULL, live, started at T0,
 * message rows present (message_count 1, newest message at started_at + 60). Passing
 * `hasMessageRows: false` also defaults message_count to 0 and the newest message to null.
 * Passing an `endReason` without `endedAtRaw` ends the row at started_at + 120.
 */
export function session(partial: Partial<SessionRecord> & {id: string}): SessionRecord {
	const startedAtRaw = partial.startedAtRaw === undefined ? T0 : partial.startedAtRaw;
	const hasMessageRows = partial.hasMessageRows ?? true;
	const started = plainEpoch(startedAtRaw);
	const endReason = partial.endReason ?? null;
	const newestMessageAt =
		partial.newestMessageAt !== undefined
			? partial.newestMessageAt
			: hasMessageRows && started !== null
				? started + 60
				: null;
	return {
		source: 'telegram',
		userId: null,
		sessionKey: null,
		chatId: null,
		chatType: null,
		threadId: null,
		displayName: null,
		parentSessionId: null,
		endedAtRaw: endReason === null ? null : (started ?? T0) + 120,
		lastActivityAtRaw: null,
		endReason,
		messageCountColumn: hasMessageRows ? 1 : 0,
		newestMessageAt,
		// The raw newest cell is the windowed one unless a test says otherwise.
		newestMessageRaw: newestMessageAt,
		modelConfigInvalid: false,
		messageRows: null,
		profileName: null,
		handoffState: null,
		title: null,
		model: null,
		branchedFrom: null,
		delegateFrom: null,
		resetFrom: null,
		inputTokens: 0,
		outputTokens: 0,
		cacheReadTokens: 0,
		cacheWriteTokens: 0,
		reasoningTokens: 0,
		toolCallCount: 0,
		...partial,
		startedAtRaw,
		hasMessageRows,
	};
}

/** A keyless row with no messages and no identity: present in the store, holds no conversation. */
export function emptySession(partial: Partial<SessionRecord> & {id: string}): SessionRecord {
	return session({hasMessageRows: false, ...partial});
}

/** A `gateway_routing` row naming `sessionId` for `sessionKey`. */
export function routingEntry(
	sessionKey: string,
	sessionId: string | null,
	partial: Partial<RoutingEntry> = {},
): RoutingEntry {
	return {scope: '/home/u/.hermes/sessions', sessionKey, sessionId, updatedAt: T0, problem: null, ...partial};
}

export type SnapshotOptions = {
	owner?: string;
	ruleSet?: RuleSet;
	routing?: RoutingEntry[];
	/** The gateway's own scope; null (the default) lets every entry count. */
	routingScope?: string | null;
	legacyRouting?: RoutingEntry[];
};

/** A snapshot of the default profile, the current rule set and no routing entries unless given. */
export function snapshot(sessions: SessionRecord[], options: SnapshotOptions = {}): Snapshot {
	return {
		sessions,
		routing: options.routing ?? [],
		owner: options.owner ?? 'default',
		ruleSet: options.ruleSet ?? 'v30',
		routingScope: options.routingScope ?? null,
		legacyRouting: options.legacyRouting ?? [],
	};
}

/** Rows by id, as the engine indexes them. */
export function indexById(sessions: readonly SessionRecord[]): Map<string, SessionRecord> {
	return new Map(sessions.map(s => [s.id, s]));
}
