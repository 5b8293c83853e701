/**
 * Other session-level problems by their column-level signatures (hermes-incidents §4, certainty
 * of §7): a keyed gateway row with NULL chat_id (#59527: /resume refuses it), a stale
 * explicit-close stamp on a row still written to (#106459: uncompressible), a phantom
 * source='unknown' row the accounting guards minted (#111999), and another profile's chats in
 * this store (#66887). Pure: the rows, the routing and the store's owner in.
 */
import {RECOVERABLE_END_REASONS} from '../end-reasons.js';
import type {Finding} from '../finding.js';
import type {Lineage} from '../lineage/lineage.js';
import {LOCAL_SURFACES} from '../routing/orphans.js';
import {parseSessionKey} from '../routing/restart.js';
import {inWindow} from '../time.js';
import type {RoutingEntry, SessionRecord} from '../types.js';

/** At most this many rows of one signature get a finding each; the rest are counted in one. */
const MAX_PER_SIGNATURE = 20;

/** Explicit, non-automatic close stamps (#106459): a user or a surface closed it on purpose. */
const EXPLICIT_CLOSE = /^(tui_close|cli_close|desktop_close|webhook_complete|[a-z]+_close|[a-z]+_complete)$/;

/** A phantom row holds at most this many messages (the #82616 lazy-writer shape carries a whole conversation). */
const PHANTOM_MAX_MESSAGES = 2;

function messagesOf(s: SessionRecord): number {
	return s.messageRows ?? s.messageCountColumn;
}

/**
 * What a row's own columns say for each signature, kept per record: the live view runs these over every row on each
 * commit, and a row that did not change (a new record is read for one that did) costs a lookup, not a key parse.
 */
export type RowSigns = {
	nullChat: boolean;
	closedThenWritten: boolean;
	phantom: boolean;
	profile: string | null;
	labelled: boolean;
};

const signs = new WeakMap<SessionRecord, RowSigns>();

/**
 * The distinct RowSigns, shared: nearly every row has the same few (no signature, its key's profile), and an object
 * per record was 21,519 objects (1.3 MB of the live heap, each with its own copy of the profile sliced from its key)
 * in a heap snapshot of the TUI following the 1M-message bench store (issue #26). Bounded as text/interned.ts is.
 */
const shared = new Map<string, RowSigns>();
const SHARED_LIMIT = 4096;

function sharedSigns(found: RowSigns): RowSigns {
	const bits = Number(found.nullChat) | (Number(found.closedThenWritten) << 1) | (Number(found.phantom) << 2);
	const key = `${bits | (Number(found.labelled) << 3)}${found.profile === null ? '' : `:${found.profile}`}`;
	const kept = shared.get(key);
	if (kept) {
		return kept;
	}

	if (shared.size >= SHARED_LIMIT) {
		shared.clear();
	}

	shared.set(key, found);
	return found;
}

/** What a row's own columns say for each signature (one shared object per distinct answer). */
export function signsOf(s: SessionRecord): Readonly<RowSigns> {
	let found = signs.get(s);
	if (!found) {
		const profile = s.sessionKey ? keyProfile(s.sessionKey) : null;
		found = sharedSigns({
			nullChat: isKeyedWithoutChatId(s),
			closedThenWritten: closedThenWritten(s),
			phantom: isPhantomUnknown(s),
			profile,
			labelled:
				s.profileName !== null &&
				s.profileName !== '' &&
				profile !== null &&
				s.profileName !== profile &&
				!(s.profileName === 'main' && profile === 'default'),
		});
		signs.set(s, found);
	}

	return found;
}

/** #59527: `session_key` set, `chat_id` NULL or '', on a gateway platform's row. */
export function isKeyedWithoutChatId(s: SessionRecord): boolean {
	return (
		(s.sessionKey ?? '') !== '' &&
		(s.chatId ?? '') === '' &&
		s.source !== '' &&
		s.source !== 'unknown' &&
		!LOCAL_SURFACES.has(s.source)
	);
}

/** #106459, from the row alone: an explicit close and messages after it. */
function closedThenWritten(s: SessionRecord): boolean {
	const ended = inWindow(s.endedAtRaw);
	const reason = s.endReason ?? '';
	return (
		ended !== null &&
		EXPLICIT_CLOSE.test(reason) &&
		!RECOVERABLE_END_REASONS.has(reason) &&
		s.newestMessageAt !== null &&
		s.newestMessageAt > ended
	);
}

/** #106459: an explicit close, messages after it, and no continuation published. */
export function isStaleExplicitClose(s: SessionRecord, lineage: Lineage): boolean {
	return closedThenWritten(s) && !(lineage.children.get(s.id) ?? []).some(e => e.kind === 'compression');
}

/** #111999: source 'unknown', keyless, accounting totals, few or no messages. */
export function isPhantomUnknown(s: SessionRecord): boolean {
	const totals =
		s.inputTokens + s.outputTokens + s.cacheReadTokens + s.cacheWriteTokens + s.reasoningTokens + s.toolCallCount;
	return s.source === 'unknown' && (s.sessionKey ?? '') === '' && totals > 0 && messagesOf(s) <= PHANTOM_MAX_MESSAGES;
}

/**
 * Each key's profile, parsed once per key: a store's rows share few keys (the bench store's 21,516 rows, 1,791 keys),
 * and a parse per row was 6.5 ms of the TUI's first analysis in a CPU profile. Bounded as `shared` is.
 */
const profiles = new Map<string, string | null>();

/** The profile a key's namespace names: `main` is the default profile, `main~` a profile named main (#110271). */
export function keyProfile(key: string): string | null {
	const known = profiles.get(key);
	if (known !== undefined) {
		return known;
	}

	const {namespace} = parseSessionKey(key);
	const profile =
		namespace === null ? null : namespace === 'main' ? 'default' : namespace === 'main~' ? 'main' : namespace;
	if (profiles.size >= SHARED_LIMIT) {
		profiles.clear();
	}

	profiles.set(key, profile);
	return profile;
}

function capped(
	kind: Finding['kind'],
	rows: SessionRecord[],
	one: (s: SessionRecord) => Finding,
	words: string,
): Finding[] {
	const out = rows.slice(0, MAX_PER_SIGNATURE).map(one);
	if (rows.length > MAX_PER_SIGNATURE) {
		out.push({
			...one(rows[MAX_PER_SIGNATURE]!),
			kind,
			subject: `${rows.length - MAX_PER_SIGNATURE} more`,
			title: `${rows.length - MAX_PER_SIGNATURE} more ${words}`,
		});
	}

	return out;
}

function nullChatIdFinding(s: SessionRecord, byId: ReadonlyMap<string, SessionRecord>): Finding {
	const parent = s.parentSessionId ? byId.get(s.parentSessionId) : undefined;
	const sub =
		parent?.endReason === 'compression'
			? `; it is the compression child of ${parent.id}, which did not pass its chat on`
			: '';
	return {
		severity: 'warning',
		kind: 'keyed-null-chat-id',
		subject: s.id,
		title: `keyed row ${s.id} has no chat_id: /resume refuses it`,
		detail:
			`${s.source} row keyed ${s.sessionKey} with chat_id NULL ` +
			`(${messagesOf(s)} messages)${sub}: Hermes' ownership guard fails ` +
			`closed, so /resume answers "belongs to a different user or chat", and ` +
			`repair-routing never lists it (it has a key) (certain, #59527)`,
		next:
			`back-fill chat_id from its origin_json or its lineage by hand after ` +
			`\`hfx backup --quick\`; see hfx lineage ${s.id}`,
	};
}

function staleCloseFinding(s: SessionRecord, routed: ReadonlySet<string>): Finding {
	const still = routed.has(s.id) ? '; the gateway still routes to it' : '';
	return {
		severity: 'warning',
		kind: 'stale-explicit-close',
		subject: s.id,
		title: `stale ${s.endReason} stamp on ${s.id}: it cannot be compressed`,
		detail:
			`ended ${s.endReason} but written to after that, with no compression ` +
			`continuation${still}: every rotation is computed and discarded ("Cannot ` +
			`compress further") (strong, #106459)`,
		next:
			'Hermes with PR #107187 reopens it when the TUI starts a turn; otherwise ' +
			'start a new session for this chat (/new) after `hfx backup --quick`',
	};
}

function phantomFinding(s: SessionRecord): Finding {
	return {
		severity: 'info',
		kind: 'phantom-unknown-row',
		subject: s.id,
		title: `phantom source='unknown' row ${s.id}`,
		detail:
			`keyless, ${messagesOf(s)} messages, ` +
			`but ${s.inputTokens + s.outputTokens} tokens accounted: the accounting ` +
			`guards minted it on a network-error retry, and the turn was billed ` +
			`twice (strong, #111999)`,
		next: 'no routing harm; current Hermes sweeps such rows at start (PR #112045)',
	};
}

function foreignFindings(
	byProfile: ReadonlyMap<string, SessionRecord[]>,
	routing: readonly RoutingEntry[],
	owner: string,
): Finding[] {
	return [...byProfile].map(([profile, rows]) => {
		const keys = new Set(rows.map(r => r.sessionKey!));
		const routed = routing.filter(e => keys.has(e.sessionKey)).length;
		const where =
			profile === owner
				? `labelled profile_name ${JSON.stringify(rows[0]!.profileName)}`
				: `profile ${profile}'s, in the store of ${owner}`;
		const count = rows.length === 1 ? 'a row' : `${rows.length} rows`;
		const title =
			profile === owner
				? `${count} keyed for profile ${profile} labelled another profile`
				: `${count} of profile ${profile}'s chats in this store`;
		return {
			severity: 'warning',
			kind: 'foreign-profile-chats',
			subject: profile,
			title,
			detail:
				`${[...keys].slice(0, 3).join(', ')}${keys.size > 3 ? ', …' : ''}: ${where}, ` +
				`with ${routed} gateway_routing row${routed === 1 ? '' : 's'} for those ` +
				`keys; one chat's history can be split across two stores (certain for ` +
				`the mismatch, #66887)`,
			next:
				`search both stores before concluding a conversation is missing; ` +
				`\`hermes sessions repair-profiles\` moves them (take \`hfx backup ` +
				`--quick\` first)`,
		} satisfies Finding;
	});
}

/**
 * The signature findings and what a later commit must leave alone for them to stand unchanged
 * (forensics/analysis/incremental.ts reuses them): the rows in any list, the parents a keyed row
 * without chat_id names in its finding, and the rows closed then written whose children decide.
 */
export type SignatureState = {
	findings: Finding[];
	/** Ids of every row in a list (a change to one of them moves the findings). */
	listed: ReadonlySet<string>;
	/** Parents named by the keyed rows without chat_id (their end reason is in the finding's text). */
	nullChatParents: ReadonlySet<string>;
	/** Rows closed then written: a change to one of their children can make or unmake the finding. */
	closedThenWritten: ReadonlySet<string>;
};

/** Would this row be in a list, whatever the lineage (a changed row that would moves the findings)? */
export function hasSignature(s: SessionRecord, owner: string): boolean {
	const signs = signsOf(s);
	return (
		signs.nullChat ||
		signs.closedThenWritten ||
		signs.phantom ||
		(signs.profile !== null && (signs.profile !== owner || signs.labelled))
	);
}

export function signatureFindings(
	sessions: readonly SessionRecord[],
	context: {
		byId: ReadonlyMap<string, SessionRecord>;
		lineage: Lineage;
		routing: readonly RoutingEntry[];
		owner: string;
	},
): Finding[] {
	return signatureState(sessions, context).findings;
}

export function signatureState(
	sessions: readonly SessionRecord[],
	context: {
		byId: ReadonlyMap<string, SessionRecord>;
		lineage: Lineage;
		routing: readonly RoutingEntry[];
		owner: string;
	},
): SignatureState {
	const routed = new Set(context.routing.flatMap(e => (e.sessionId ? [e.sessionId] : [])));
	// One pass, one lookup per row (the live view runs this on every commit it cannot skip).
	const nullChat: SessionRecord[] = [];
	const staleClose: SessionRecord[] = [];
	const phantom: SessionRecord[] = [];
	const byProfile = new Map<string, SessionRecord[]>();
	const listed = new Set<string>();
	const closed = new Set<string>();
	for (const s of sessions) {
		const signs = signsOf(s);
		if (signs.nullChat) {
			nullChat.push(s);
			listed.add(s.id);
		}

		if (signs.closedThenWritten) {
			closed.add(s.id);
			listed.add(s.id);
			if (!(context.lineage.children.get(s.id) ?? []).some(e => e.kind === 'compression')) {
				staleClose.push(s);
			}
		}

		if (signs.phantom) {
			phantom.push(s);
			listed.add(s.id);
		}

		if (signs.profile !== null && (signs.profile !== context.owner || signs.labelled)) {
			const list = byProfile.get(signs.profile) ?? [];
			list.push(s);
			byProfile.set(signs.profile, list);
			listed.add(s.id);
		}
	}

	const findings = [
		...capped('keyed-null-chat-id', nullChat, s => nullChatIdFinding(s, context.byId), 'keyed rows without chat_id'),
		...capped('stale-explicit-close', staleClose, s => staleCloseFinding(s, routed), 'rows with a stale close stamp'),
		...capped('phantom-unknown-row', phantom, phantomFinding, 'phantom rows'),
		...foreignFindings(byProfile, context.routing, context.owner),
	];
	const nullChatParents = new Set(nullChat.flatMap(s => (s.parentSessionId ? [s.parentSessionId] : [])));
	return {findings, listed, nullChatParents, closedThenWritten: closed};
}
