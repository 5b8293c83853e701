/**
 * The `ws_orphan_reap` zombie (hermes-incidents.md §1.3, secondary signatures; #63207): the TUI or
 * dashboard reaper stamped a live messaging row `ws_orphan_reap`, and builds before #63219 then
 * minted a fresh, empty row for every message: each turn of the chat starts with no history.
 * Seen in the rows alone: after the reaped row, a run of rows of the same key holding one turn
 * each. Pure.
 */
import {BOUNDARY_END_REASONS} from '../end-reasons.js';
import type {Finding} from '../finding.js';
import {buildKeyIndex} from '../routing/routing.js';
import type {Certainty} from './rollbacks.js';
import {inWindow} from '../time.js';
import type {SessionRecord} from '../types.js';

export const REAP_END_REASON = 'ws_orphan_reap';

/** At most this many messages: one user message and its reply, a turn started with no history. */
const ONE_TURN = 2;

export type ReapChurn = {
	sessionKey: string;
	/** The reaped row: the chat's conversation up to the reap. */
	reapedId: string;
	reapedMessages: number;
	/** The one-turn rows minted after it, oldest first. */
	oneTurnRows: string[];
	firstAt: number | null;
	lastAt: number | null;
	certainty: Certainty;
};

function started(s: SessionRecord): number {
	return inWindow(s.startedAtRaw) ?? Number.NEGATIVE_INFINITY;
}

function messages(s: SessionRecord): number {
	return s.messageRows ?? s.messageCountColumn;
}

/** After the reaped row at `i`, the run of one-turn rows of its key. */
function runAfter(rows: readonly SessionRecord[], i: number): SessionRecord[] {
	const run: SessionRecord[] = [];
	for (const s of rows.slice(i + 1)) {
		// A deliberate fresh start (a reset, /new, a daily boundary) is not the reaper's churn.
		const deliberate = s.resetFrom !== null || (s.endReason !== null && BOUNDARY_END_REASONS.has(s.endReason));
		if (!s.hasMessageRows || messages(s) > ONE_TURN || deliberate) {
			break;
		}

		run.push(s);
	}

	return run;
}

function churnOf(key: string, rows: readonly SessionRecord[]): ReapChurn | null {
	const sorted = [...rows].sort((a, b) => started(a) - started(b) || (a.id < b.id ? -1 : 1));
	// The latest reaped row with a conversation, followed by at least two one-turn rows.
	for (let i = sorted.length - 1; i >= 0; i--) {
		const reaped = sorted[i]!;
		const run = reaped.endReason === REAP_END_REASON && reaped.hasMessageRows ? runAfter(sorted, i) : [];
		if (run.length >= 2) {
			return {
				sessionKey: key,
				reapedId: reaped.id,
				reapedMessages: messages(reaped),
				oneTurnRows: run.map(s => s.id),
				firstAt: inWindow(run[0]!.startedAtRaw),
				lastAt: run.at(-1)!.newestMessageAt,
				certainty: run.length >= 3 ? 'strong' : 'weak',
			};
		}
	}

	return null;
}

const byKeyOrder = (a: ReapChurn, b: ReapChurn) =>
	a.sessionKey < b.sessionKey ? -1 : a.sessionKey > b.sessionKey ? 1 : 0;

/** Every chat whose turns have started without history since a reap, in key order (whatever order the rows come in). */
export function detectReapChurn(sessions: readonly SessionRecord[]): ReapChurn[] {
	// Most stores have no reaped row: one cheap pass, and no grouping.
	if (!sessions.some(s => s.endReason === REAP_END_REASON && s.sessionKey !== null)) {
		return [];
	}

	return [...buildKeyIndex(sessions)].flatMap(([key, rows]) => churnOf(key, rows) ?? []).sort(byKeyOrder);
}

/**
 * The churns after the rows of some keys changed (the live view's incremental analysis): a chat's churn rests on its
 * own rows alone, so the previous churns of the other keys stand and these keys' are judged again from their rows
 * now (`rowsOf`: the key's rows, or undefined when none is left). Equal to `detectReapChurn` of every row, at a cost
 * in the changed keys' rows, not in the store's: the full pass walked every session on every commit.
 */
export function reapChurnAfter(
	previous: ReapChurn[],
	keys: ReadonlySet<string>,
	rowsOf: (key: string) => readonly SessionRecord[] | undefined,
): ReapChurn[] {
	if (keys.size === 0) {
		return previous;
	}

	const next = previous.filter(c => !keys.has(c.sessionKey));
	const kept = next.length;
	for (const key of keys) {
		const rows = rowsOf(key);
		const churn = rows && rows.length > 0 ? churnOf(key, rows) : null;
		if (churn) {
			next.push(churn);
		}
	}

	return next.length === kept && kept === previous.length ? previous : next.sort(byKeyOrder);
}

export function reapChurnFinding(c: ReapChurn): Finding {
	const turns = c.oneTurnRows.length;
	return {
		severity: 'critical',
		kind: 'reap-churn',
		subject: c.sessionKey,
		title: `NO HISTORY ${c.sessionKey}: ${turns} turns since a reap each began in a fresh, empty session`,
		detail:
			`${c.reapedId} (${c.reapedMessages} messages) was ` +
			`ended ${REAP_END_REASON} by the TUI/dashboard reaper, and ${turns} rows ` +
			`of this key holding one turn each followed ` +
			`(${c.oneTurnRows.slice(0, 3).join(', ')}${turns > 3 ? ', …' : ''}): the ` +
			`shape of Hermes builds before #63219, which minted a new row for every ` +
			`message (#63207); ${c.certainty}`,
		next:
			`upgrade Hermes (#63219 fixed it); the conversation up to the reap is ` +
			`safe in ${c.reapedId}: in the chat, \`/resume ${c.reapedId}\` returns to it`,
	};
}
