/**
 * What the gateway resumes for a chat after a restart (docs/hermes-rules.md, restart), per rule
 * set: the routing entry (healed to its compression tip, dropped if its row ended), then
 * `find_latest_gateway_session_for_peer`: the exact-key query, then the tuple fallback.
 */
import {RESET_END_REASONS} from '../end-reasons.js';
import type {Rules} from '../generations.js';
import {type Lineage, compressionTip} from '../lineage/lineage.js';
import type {Cell, RoutingEntry, RuleSet, SessionRecord} from '../types.js';
import {coalesce, compareCells} from '../time.js';

export type CandidateVerdict = {
	sessionId: string;
	query: 'exact-key' | 'tuple-fallback';
	admitted: boolean;
	/** The rule that admits or excludes it, in words. */
	rule: string;
	hasMessages: boolean;
	/** The ordering key Hermes uses (raw cell). */
	orderKey: Cell;
};

export type Resolution = {
	/** The session a restart would resume, or null when the gateway would start a new one. */
	sessionId: string | null;
	via: 'routing-entry' | 'exact-key' | 'tuple-fallback' | 'new-session';
	ruleSet: RuleSet;
	candidates: CandidateVerdict[];
	notes: string[];
};

export type ChatIdentity = {
	platform: string;
	namespace: string | null;
	userId: string | null;
	chatId: string | null;
	chatType: string | null;
	threadId: string | null;
};

const AGENT = 'agent:';

/**
 * `agent:<ns>:<platform>:...`: what `key.split(':')` gives at 1 and 2 when it has three parts or more, found with
 * indexOf instead of building every part (issue #26: called for every chat of every rule set's routing pass).
 */
export function parseSessionKey(key: string): {namespace: string | null; platform: string | null} {
	const nsEnd = key.startsWith(AGENT) ? key.indexOf(':', AGENT.length) : -1;
	if (nsEnd < 0) {
		return {namespace: null, platform: null};
	}

	const platformEnd = key.indexOf(':', nsEnd + 1);
	return {
		namespace: key.slice(AGENT.length, nsEnd),
		platform: key.slice(nsEnd + 1, platformEnd < 0 ? key.length : platformEnd),
	};
}

function hasMessages(s: SessionRecord): boolean {
	return s.messageCountColumn > 0 || s.hasMessageRows;
}

function recencyKey(s: SessionRecord): Cell {
	return coalesce(s.lastActivityAtRaw, s.startedAtRaw);
}

function recoverability(s: SessionRecord, rules: Rules): {ok: boolean; rule: string} {
	if (s.endedAtRaw === null) {
		return {ok: true, rule: 'live (ended_at is NULL)'};
	}

	if (s.endReason !== null && rules.recoverable.has(s.endReason)) {
		return {ok: true, rule: `ended ${s.endReason} (recoverable: reopened on restart)`};
	}

	if (rules.completedHandoff && s.handoffState === 'completed') {
		return {ok: true, rule: 'handoff completed (owned by this chat)'};
	}

	return {ok: false, rule: `ended ${s.endReason ?? '(no reason)'}: not recoverable`};
}

/** Could this row fence its siblings: did it end with a reset reason? */
function endedWithReset(b: SessionRecord): boolean {
	return b.endedAtRaw !== null && b.endReason !== null && RESET_END_REASONS.has(b.endReason);
}

/**
 * Id order for the candidate listings, and the reset siblings below as a loop: made once, not per resolution. A
 * callback made per call lost its optimised code at each mark-compact (every ~4 s while following 200 commits/s), and
 * TurboFan compiled it again (issue #26: 22 compiles of the sort callback in 80 s of following, --log-code).
 */
function byIdOrder(a: SessionRecord, b: SessionRecord): number {
	return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The rows that ended with a reset, of this platform when one is given, and inside the profile fence if any. */
function resetSiblingsOf(
	rows: readonly SessionRecord[],
	platform: string | null,
	fence?: (s: SessionRecord) => boolean,
): SessionRecord[] {
	const out: SessionRecord[] = [];
	for (const b of rows) {
		if ((platform === null || b.source === platform) && (!fence || fence(b)) && endedWithReset(b)) {
			out.push(b);
		}
	}

	return out;
}

/**
 * Reset fence: a sibling ended with a reset reason after this row's last activity hides it (the first such, in the
 * given order).
 */
function fencedBy(s: SessionRecord, resetSiblings: readonly SessionRecord[]): SessionRecord | undefined {
	const key = recencyKey(s);
	if (key === null) {
		return undefined;
	}

	for (const b of resetSiblings) {
		if (compareCells(b.endedAtRaw, key) > 0) {
			return b;
		}
	}

	return undefined;
}

function orderCandidates(rows: SessionRecord[], rules: Rules, messagesFirst: boolean): SessionRecord[] {
	if (rules.finder !== 'recency') {
		return rows.sort(newestStartFirst);
	}

	return rows.sort(messagesFirst ? withMessagesThenMostRecent : mostRecentFirst);
}

// orderCandidates' three orders, made once (see byIdOrder).
function newestStartFirst(a: SessionRecord, b: SessionRecord): number {
	return compareCells(b.startedAtRaw, a.startedAtRaw) || (a.id < b.id ? 1 : -1);
}

function mostRecentFirst(a: SessionRecord, b: SessionRecord): number {
	return compareCells(recencyKey(b), recencyKey(a)) || (a.id < b.id ? 1 : -1);
}

function withMessagesThenMostRecent(a: SessionRecord, b: SessionRecord): number {
	return Number(hasMessages(b)) - Number(hasMessages(a)) || mostRecentFirst(a, b);
}

/** One candidate's verdict (a literal in the declared key order: the JSON output lists them so). */
function candidateVerdict(
	s: SessionRecord,
	query: CandidateVerdict['query'],
	rules: Rules,
	admitted: boolean,
	rule: string,
): CandidateVerdict {
	return {
		sessionId: s.id,
		query,
		hasMessages: hasMessages(s),
		orderKey: rules.finder === 'recency' ? recencyKey(s) : s.startedAtRaw,
		admitted,
		rule,
	};
}

type EvaluateOptions = {
	platform: string;
	/**
	 * The siblings that ended with a reset reason, in candidate order: the only rows that can
	 * fence a candidate. Every fenced candidate is of the platform's source, so one list serves all.
	 */
	resetSiblings: readonly SessionRecord[];
	requireMessages: boolean;
	profileFence?: (s: SessionRecord) => boolean;
};

function evaluate(
	rows: readonly SessionRecord[],
	query: CandidateVerdict['query'],
	rules: Rules,
	options: EvaluateOptions,
): {verdicts: CandidateVerdict[]; admitted: SessionRecord[]} {
	const verdicts: CandidateVerdict[] = [];
	const admitted: SessionRecord[] = [];
	for (const s of rows) {
		if (s.source !== options.platform) {
			verdicts.push(
				candidateVerdict(
					s,
					query,
					rules,
					false,
					`source is ${s.source || '(empty)'}, the chat's platform is ${options.platform}`,
				),
			);
			continue;
		}

		if (options.profileFence && !options.profileFence(s)) {
			verdicts.push(
				candidateVerdict(
					s,
					query,
					rules,
					false,
					`profile fence: profile_name ${s.profileName ?? 'NULL'} is another profile's`,
				),
			);
			continue;
		}

		const rec = recoverability(s, rules);
		if (!rec.ok) {
			verdicts.push(candidateVerdict(s, query, rules, false, rec.rule));
			continue;
		}

		if (options.requireMessages && !hasMessages(s)) {
			verdicts.push(candidateVerdict(s, query, rules, false, 'no messages (this finder requires messages)'));
			continue;
		}

		if (rules.resetFence) {
			const fence = fencedBy(s, options.resetSiblings);
			if (fence) {
				verdicts.push(
					candidateVerdict(
						s,
						query,
						rules,
						false,
						`reset fence: ${fence.id} ended ${fence.endReason} after this row's last activity`,
					),
				);
				continue;
			}
		}

		admitted.push(s);
		verdicts.push(
			candidateVerdict(
				s,
				query,
				rules,
				true,
				rec.rule + (hasMessages(s) ? '' : '; no messages (ranked after rows with messages)'),
			),
		);
	}

	return {verdicts, admitted};
}

export type ResolveInput = {
	sessionKey: string;
	identity: ChatIdentity;
	/** Rows carrying this session key. */
	keyed: readonly SessionRecord[];
	/** Rows whose (source, user, chat, type, thread) tuple matches the identity (for the fallback). */
	tupleRows: () => readonly SessionRecord[];
	routingEntry: RoutingEntry | undefined;
	/** assessRoutingEntry's verdict on routingEntry, when the caller already has it (not assessed twice). */
	routingEntryAssessment?: EntryAssessment;
	byId: ReadonlyMap<string, SessionRecord>;
	lineage: Lineage;
	rules: Rules;
	owner: string | null;
};

export type EntryAssessment = {
	/** The entry would be used as-is (after healing to the compression tip). */
	honoured: boolean;
	stale: boolean;
	/** The session the entry leads to after healing. */
	healedTo: string | null;
	note: string;
};

export function assessRoutingEntry(
	entry: RoutingEntry,
	byId: ReadonlyMap<string, SessionRecord>,
	lineage: Lineage,
): EntryAssessment {
	if (entry.problem || !entry.sessionId) {
		return {honoured: false, stale: true, healedTo: null, note: `entry unusable: ${entry.problem ?? 'no session_id'}`};
	}

	const tip = compressionTip(entry.sessionId, lineage, byId);
	const healed = tip === entry.sessionId ? '' : ` (healed along compression to ${tip})`;
	const row = byId.get(tip);
	if (!row) {
		return {
			honoured: true,
			stale: true,
			healedTo: tip,
			note: `routes to ${tip}${healed}, which is not in this store: the gateway would re-create it empty`,
		};
	}

	if (row.endReason !== null) {
		return {
			honoured: false,
			stale: true,
			healedTo: tip,
			note: `routes to ${tip}${healed}, which ended (${row.endReason}): dropped on restart (stale routing self-heal)`,
		};
	}

	return {
		honoured: true,
		stale: false,
		healedTo: tip,
		note: `routes to ${tip}${healed}, a live row: reused on restart`,
	};
}

/** The profile a key's `agent:<ns>` names (`main` is the default profile), or null for another shape. */
function keyProfile(key: string): string | null {
	const parts = key.split(':');
	if (parts.length < 2 || parts[0] !== 'agent') {
		return null;
	}

	const ns = parts[1] || 'main';
	return ns === 'main' ? 'default' : ns;
}

/**
 * The gateway's namespace post-filter on the row the tuple fallback found (hermes-state.md §3.3
 * step 5): why it is rejected, or null. A keyless row, the requested key itself and a key of no
 * `agent:` shape pass. A single-profile gateway (its keys are `agent:main:`) takes only rows of its
 * active profile, the store's owner; a multiplexed one (`agent:<profile>:`) only rows of the
 * requested key's profile in v30, every row in v25 and older.
 */
function namespaceRejection(
	recoveredKey: string | null,
	requestedKey: string,
	rules: Rules,
	owner: string | null,
): string | null {
	const recovered = recoveredKey ? keyProfile(recoveredKey) : null;
	if (!recoveredKey || recoveredKey === requestedKey || recovered === null) {
		return null;
	}

	const requestedNs = parseSessionKey(requestedKey).namespace;
	if (requestedNs !== null && requestedNs !== 'main') {
		const requested = keyProfile(requestedKey);
		return !rules.namespaceFilterMultiplexed || requested === null || requested === recovered
			? null
			: `its key is profile ${recovered}'s, not the requested key's ` +
					`profile ${requested} (multiplexed gateway, rules ${rules.ruleSet})`;
	}

	const active = owner ?? 'default';
	return recovered === active ? null : `its key is profile ${recovered}'s, not the gateway's active profile ${active}`;
}

export function resolveRestart(input: ResolveInput): Resolution {
	const {identity, rules} = input;
	const ruleSet = rules.ruleSet;
	const notes: string[] = [];
	if (input.routingEntry) {
		const a = input.routingEntryAssessment ?? assessRoutingEntry(input.routingEntry, input.byId, input.lineage);
		notes.push(`gateway_routing: ${a.note}`);
		if (a.honoured && a.healedTo) {
			return {sessionId: a.healedTo, via: 'routing-entry', ruleSet, candidates: [], notes};
		}
	}

	// Candidates in id order: the listing is the same whoever built the index.
	const keyed = [...input.keyed].sort(byIdOrder);
	const exact = evaluate(keyed, 'exact-key', rules, {
		platform: identity.platform,
		// Siblings: rows with the same key and source.
		resetSiblings: resetSiblingsOf(keyed, identity.platform),
		requireMessages: rules.finder === 'legacy',
	});
	const candidates = exact.verdicts;
	const exactWinner = orderCandidates(exact.admitted, rules, true)[0];
	if (exactWinner) {
		return {sessionId: exactWinner.id, via: 'exact-key', ruleSet, candidates, notes};
	}

	// Slack lookups are scoped by workspace in current Hermes; the v25 and v21 trees run the tuple
	// fallback for every platform (their real code, test/fixtures/hermes-differential).
	if (identity.platform === 'slack' && rules.slackSkipsTupleFallback) {
		notes.push('tuple fallback skipped: Slack lookups are scoped by workspace');
	} else if (identity.chatId === null || identity.chatType === null) {
		notes.push("tuple fallback skipped: the chat's chat_id/chat_type are unknown");
	} else {
		const owner = input.owner;
		const fence =
			rules.profileFence && owner !== null ? (s: SessionRecord) => (s.profileName ?? owner) === owner : undefined;
		const tuple = [...input.tupleRows()].sort(byIdOrder);
		const tupleResult = evaluate(tuple, 'tuple-fallback', rules, {
			platform: identity.platform,
			// Siblings: the tuple's rows (of this profile, under a profile fence).
			resetSiblings: resetSiblingsOf(tuple, null, fence),
			requireMessages: true,
			profileFence: fence,
		});
		candidates.push(...tupleResult.verdicts);
		const ordered = orderCandidates(tupleResult.admitted, rules, false);
		const winner = ordered[0];
		if (winner) {
			const rejected = namespaceRejection(winner.sessionKey, input.sessionKey, rules, owner);
			if (rejected === null) {
				return {sessionId: winner.id, via: 'tuple-fallback', ruleSet, candidates, notes};
			}

			notes.push(`tuple fallback found ${winner.id} (${winner.sessionKey}), but ${rejected}: rejected`);
		}
	}

	return {sessionId: null, via: 'new-session', ruleSet, candidates, notes};
}
