/**
 * What changed between two snapshots, in the operator's words: messages appended, sessions
 * created / ended / rotated, routing entries moved, findings that appeared or cleared (a rollback
 * that happened among them: the risk it ends is not "cleared").
 * Pure: the live store feeds it two analyses and the ids of messages that arrived in between.
 */
import type {Analysis} from './analyze.js';
import type {ChatRouting} from '../routing/routing.js';
import {inWindow} from '../time.js';
import type {SessionRecord} from '../types.js';
import type {Rollback} from '../rollbacks/rollbacks.js';
import {duration} from '../duration.js';

export type ActivityKind =
	| 'reopened'
	| 'messages'
	| 'created'
	| 'ended'
	| 'rotated'
	| 'routing'
	| 'orphan'
	| 'rolled-back'
	| 'rollback-risk'
	| 'resolved'
	| 'repaired'
	| 'removed';

export type ActivityEvent = {
	/** Wall-clock seconds when hfx saw it (a burst: when it began). */
	at: number;
	kind: ActivityKind;
	/** Session id or session key the event is about (a burst: the session written last). */
	subject: string;
	text: string;
	/** A `messages` event: how many rows and the session's label; a folded burst: what it sums. */
	count?: number;
	label?: string;
	burst?: Burst;
	/** A notice seen again and folded into its first line (isRepeatable): how many times in all, and when last. */
	repeated?: Repeat;
	/**
	 * A `reopened` notice of the file read last, which a writer opened, left or changed: a burst of messages goes on
	 * across it (passesThrough). Absent: another file behind the path (a restore, a link retargeted), or none.
	 */
	sameFile?: boolean;
};

/** The same notice, seen `times` times in all, the last at `until`. */
export type Repeat = {times: number; until: number};

/** Routine commits folded into one line: from `at` to `until`, so many messages in so many sessions. */
export type Burst = {until: number; messages: number; sessions: readonly string[]};

/** Routine events (messages appended) closer than this to the last one extend its burst. */
export const BURST_GAP_S = 10;

export type NewMessages = ReadonlyMap<string, number>;

function label(s: SessionRecord): string {
	return s.sessionKey ?? (s.source ? `${s.source} (no key)` : 'no key');
}

function keyChange(id: string, from: string | null, to: string | null): string {
	if (from === null) {
		return `${id} got session key ${to}`;
	}

	return to === null ? `${id} lost its session key ${from}` : `${id} session key ${from} → ${to}`;
}

/** A row ended by a repair (Hermes' repair-routing, or hfx's): its chat moved to the adopted session. */
function repaired(after: Analysis, s: SessionRecord, at: number): ActivityEvent {
	const heir = (after.lineage.children.get(s.id) ?? []).find(c => c.kind === 'repair')?.childId;
	return {
		at,
		kind: 'repaired',
		subject: heir ?? s.id,
		text: heir
			? `repaired: ${heir} took over ${s.sessionKey ?? 'the chat'} from ${s.id} (superseded_by_repair)`
			: `repaired: ${s.id} ended superseded_by_repair`,
	};
}

/** Rollbacks that already happened, newly seen or no longer seen (by chat and stranded row). */
function rollbackEvents(before: Analysis, after: Analysis, at: number): ActivityEvent[] {
	const id = (r: Rollback) => `${r.sessionKey}\0${r.skipped.id}`;
	const old = new Set(before.rollbacks.map(id));
	const now = new Set(after.rollbacks.map(id));
	const events: ActivityEvent[] = after.rollbacks
		.filter(r => !old.has(id(r)))
		.map(r => ({
			at,
			kind: 'rolled-back' as const,
			subject: r.sessionKey,
			text:
				`${r.sessionKey}: a restart resumed ${r.resumedId}, a ` +
				`context ${duration(r.resumedAt - r.jumpedFrom)} old; ` +
				`the ${r.skipped.messages} messages it skipped are stranded ` +
				`in ${r.skipped.id}`,
		}));
	for (const r of before.rollbacks.filter(r => !now.has(id(r)))) {
		events.push({
			at,
			kind: 'resolved',
			subject: r.sessionKey,
			text:
				`rollback of ${r.sessionKey} no longer seen: ${r.skipped.id} carries a ` +
				`routing identity again, or a row of it changed`,
		});
	}

	return events;
}

/**
 * The chats a rollback risk can have appeared or cleared in, before and after, in list order: when both lists hold the
 * same keys at the same places (an incremental analysis replaces a commit's chats where they stand), the chats that
 * are not the same object, found by comparing the two arrays' slots (the chat objects themselves are not read: the
 * three walks of every chat read 1,791 scattered objects a commit on the bench store); else every chat.
 */
function chatsThatDiffer(
	before: readonly ChatRouting[],
	after: readonly ChatRouting[],
): [readonly ChatRouting[], readonly ChatRouting[]] {
	if (before.length !== after.length) {
		return [before, after];
	}

	const [was, now]: [ChatRouting[], ChatRouting[]] = [[], []];
	for (let i = 0; i < after.length; i++) {
		if (before[i] !== after[i]) {
			if (before[i]!.sessionKey !== after[i]!.sessionKey) {
				return [before, after];
			}

			was.push(before[i]!);
			now.push(after[i]!);
		}
	}

	return [was, now];
}

/** Findings that appeared or cleared: orphans, rollbacks that happened, and chats at rollback risk. */
function findingEvents(before: Analysis, after: Analysis, at: number): ActivityEvent[] {
	const events: ActivityEvent[] = [];
	if (before.orphans !== after.orphans) {
		const oldOrphans = new Set(before.orphans.map(o => o.orphanId));
		const newOrphans = new Set(after.orphans.map(o => o.orphanId));
		for (const o of after.orphans) {
			if (!oldOrphans.has(o.orphanId)) {
				events.push({
					at,
					kind: 'orphan',
					subject: o.orphanId,
					text:
						`orphan ${o.orphanId} (${o.source}, no routing ` +
						`identity): ${o.verdict}${o.donorId ? ` into ${o.sessionKey}` : ` (${o.reasonKind})`}`,
				});
			}
		}

		for (const id of oldOrphans) {
			if (!newOrphans.has(id)) {
				const key = after.byId.get(id)?.sessionKey;
				events.push({
					at,
					kind: 'resolved',
					subject: id,
					text: `orphan ${id} cleared: ${key ? `it carries ${key} now` : 'no longer a finding'}`,
				});
			}
		}
	}

	const [was, now] = chatsThatDiffer(before.routing, after.routing);
	const oldRisk = new Set(was.filter(r => r.rollbackRisk).map(r => r.sessionKey));
	const newRisk = new Set(now.filter(r => r.rollbackRisk).map(r => r.sessionKey));
	for (const r of now) {
		if (r.rollbackRisk && !oldRisk.has(r.sessionKey)) {
			events.push({
				at,
				kind: 'rollback-risk',
				subject: r.sessionKey,
				text:
					`${r.sessionKey}: ` +
					(r.restartResolvesTo === null
						? 'a restart would start a fresh, empty session'
						: `a restart would resume ${r.restartResolvesTo}`) +
					`, ` +
					`newest message in ${r.newestActivityIn}`,
			});
		}
	}

	const rolled = rollbackEvents(before, after, at);
	events.push(...rolled);
	const rolledBack = new Set(rolled.filter(e => e.kind === 'rolled-back').map(e => e.subject));
	for (const key of oldRisk) {
		// A risk that ended in a rollback did not clear: its ROLLED BACK line says what happened.
		if (!newRisk.has(key) && !rolledBack.has(key)) {
			events.push({
				at,
				kind: 'resolved',
				subject: key,
				text: `rollback risk cleared for ${key}: a restart resumes its newest conversation`,
			});
		}
	}

	return events;
}

/** The sessions of the earlier analysis, by id: its own index, or their records as they were. */
type Previous = Pick<ReadonlyMap<string, SessionRecord>, 'get' | 'has' | 'keys'>;

/**
 * `changed`, when known, limits the session comparison to those ids (the live view's incremental
 * path); `old` gives their records as they were when the two analyses share one index.
 */
export function diffActivity(
	before: Analysis,
	after: Analysis,
	newMessages: NewMessages,
	at: number,
	changed?: ReadonlySet<string>,
	old?: (id: string) => SessionRecord | undefined,
): ActivityEvent[] {
	const prev: Previous = old
		? {get: old, has: id => old(id) !== undefined, keys: () => before.byId.keys()}
		: before.byId;
	return withoutRotatedEnds(after, [
		...rowEvents(after, prev, newMessages, at, changed),
		...routingEntryEvents(before, after, at),
		...findingEvents(before, after, at),
	]);
}

/**
 * What the rows alone say changed between a partial read and a full one (the live view drawn from its newest rows,
 * then read whole: issue #26): messages appended, sessions created or rotated, ended or reopened, re-keyed, or gone.
 * `changed`: the sessions new since the partial read and those it held; `old`: what it held of them. Without an
 * analysis of the partial read, no finding is compared (the first analysis is where findings start).
 */
export function rowActivity(
	after: Analysis,
	newMessages: NewMessages,
	at: number,
	changed: ReadonlySet<string>,
	old: (id: string) => SessionRecord | undefined,
): ActivityEvent[] {
	const prev: Previous = {get: old, has: id => old(id) !== undefined, keys: () => changed.values()};
	return withoutRotatedEnds(after, rowEvents(after, prev, newMessages, at, changed));
}

/** Messages, then each compared session against its earlier record (in the store's order), then the rows gone. */
function rowEvents(
	after: Analysis,
	prev: Previous,
	newMessages: NewMessages,
	at: number,
	changed: ReadonlySet<string> | undefined,
): ActivityEvent[] {
	// Loops, not callbacks made per call: this runs every refresh (issue #26).
	const out = messageEvents(after, newMessages, at);
	if (changed) {
		for (const id of changed) {
			const s = after.byId.get(id);
			if (s !== undefined) {
				out.push(...sessionEvents(after, prev.get(s.id), s, at));
			}
		}
	} else {
		for (const s of after.snapshot.sessions) {
			out.push(...sessionEvents(after, prev.get(s.id), s, at));
		}
	}

	out.push(...removedEvents(after, prev, changed, at));
	return out;
}

/** A parent that ended by the rotation seen in the same read is said by the rotation's line. */
function withoutRotatedEnds(after: Analysis, events: ActivityEvent[]): ActivityEvent[] {
	const rotatedFrom = new Set(
		events.filter(e => e.kind === 'rotated').map(e => after.lineage.parentEdge.get(e.subject)?.parentId),
	);
	return events.filter(e => !(e.kind === 'ended' && rotatedFrom.has(e.subject)));
}

/** Messages appended since the last read, per session. */
function messageEvents(after: Analysis, newMessages: NewMessages, at: number): ActivityEvent[] {
	return [...newMessages].map(([id, count]) => {
		const s = after.byId.get(id);
		const name = s ? label(s) : 'unknown session';
		return {
			at,
			kind: 'messages',
			subject: id,
			count,
			label: name,
			text: `+${count} message${count === 1 ? '' : 's'} in ${id} (${name})`,
		};
	});
}

/** One session against its earlier record: created or rotated, ended or reopened, its session key moved. */
function sessionEvents(after: Analysis, old: SessionRecord | undefined, s: SessionRecord, at: number): ActivityEvent[] {
	if (!old) {
		const edge = after.lineage.parentEdge.get(s.id);
		return edge && (edge.kind === 'compression' || edge.kind === 'reset')
			? [{at, kind: 'rotated', subject: s.id, text: `${edge.parentId} → ${s.id} (${edge.kind}, ${label(s)})`}]
			: [
					{
						at,
						kind: 'created',
						subject: s.id,
						text: `${s.id} (${s.source}${s.sessionKey ? `, ${s.sessionKey}` : ', no routing identity'})`,
					},
				];
	}

	const events: ActivityEvent[] = [];
	if (old.endedAtRaw === null && s.endedAtRaw !== null) {
		events.push(
			s.endReason === 'superseded_by_repair'
				? repaired(after, s, at)
				: {at, kind: 'ended', subject: s.id, text: `${s.id}: ${s.endReason ?? '(no reason)'}`},
		);
	} else if (old.endedAtRaw !== null && s.endedAtRaw === null) {
		events.push({at, kind: 'ended', subject: s.id, text: `${s.id} reopened (was ${old.endReason ?? 'ended'})`});
	}

	if (old.sessionKey !== s.sessionKey) {
		events.push({at, kind: 'routing', subject: s.id, text: keyChange(s.id, old.sessionKey, s.sessionKey)});
	}

	return events;
}

/** Sessions the earlier analysis had and the store no longer does. */
function removedEvents(
	after: Analysis,
	prev: Previous,
	changed: ReadonlySet<string> | undefined,
	at: number,
): ActivityEvent[] {
	const events: ActivityEvent[] = [];
	for (const id of changed ?? prev.keys()) {
		if (prev.has(id) && !after.byId.has(id)) {
			events.push({at, kind: 'removed', subject: id, text: `${id} is gone from the store`});
		}
	}

	return events;
}

/** Routing entries (scope and session key) that now name another session. */
function routingEntryEvents(before: Analysis, after: Analysis, at: number): ActivityEvent[] {
	// The live store hands over the very same arrays when nothing there moved: nothing to compare.
	if (before.snapshot.routing === after.snapshot.routing) {
		return [];
	}

	const oldEntries = new Map(before.snapshot.routing.map(e => [`${e.scope}\u0000${e.sessionKey}`, e.sessionId]));
	const events: ActivityEvent[] = [];
	for (const e of after.snapshot.routing) {
		const was = oldEntries.get(`${e.scope}\u0000${e.sessionKey}`);
		if (was !== e.sessionId) {
			events.push({
				at,
				kind: 'routing',
				subject: e.sessionKey,
				text: `routing entry ${e.sessionKey}: ${was ?? '(none)'} → ${e.sessionId ?? '(unusable)'}`,
			});
		}
	}

	return events;
}

/** Ids whose row changed (for a brief highlight in tables). */
export function changedSessionIds(
	before: Analysis,
	after: Analysis,
	newMessages: NewMessages,
	candidates?: ReadonlySet<string>,
	old?: (id: string) => SessionRecord | undefined,
): Set<string> {
	const changed = new Set(newMessages.keys());
	const compared = candidates
		? [...candidates].map(id => after.byId.get(id)).filter((s): s is SessionRecord => s !== undefined)
		: after.snapshot.sessions;
	for (const s of compared) {
		const was = old ? old(s.id) : before.byId.get(s.id);
		if (
			!was ||
			was.endedAtRaw !== s.endedAtRaw ||
			was.endReason !== s.endReason ||
			was.sessionKey !== s.sessionKey ||
			was.title !== s.title ||
			inWindow(was.lastActivityAtRaw) !== inWindow(s.lastActivityAtRaw)
		) {
			changed.add(s.id);
		}
	}

	return changed;
}

/** Events that are routine (a burst of them folds into one line); every other kind stands out. */
export function isRoutine(e: ActivityEvent): boolean {
	return e.kind === 'messages';
}

/**
 * Notices that can come again at every commit, the same each time: the store reopened for the same reason (a writer
 * that holds nothing, as the sqlite3 CLI does, makes every commit "the store file changed while no agent held it").
 * One line each was half the timeline: such a notice folds into its first line, which counts it.
 */
function isRepeatable(e: ActivityEvent): boolean {
	return e.kind === 'reopened';
}

/**
 * A notice that neither ends a burst of messages nor keeps a reopen from folding across it: the store's own file
 * opened, left or changed by a writer. A writer that holds nothing makes one at every commit, and a sampling that
 * meets its -wal in passing makes another reason of it ("the agent opened the store"), so two reasons alternate.
 */
function passesThrough(e: ActivityEvent): boolean {
	return isRepeatable(e) && e.sameFile === true;
}

/**
 * The entries at the end of `out` an event may fold into: back across notices that pass through and at most one burst
 * (the messages between two reopens). The index of the first.
 */
function foldableFrom(out: readonly ActivityEvent[]): number {
	let bursts = 0;
	let i = out.length;
	for (; i > 0; i--) {
		const o = out[i - 1]!;
		if (o.burst ? ++bursts > 1 : !passesThrough(o)) {
			break;
		}
	}

	return i;
}

/**
 * Where in `out` the notice `e` was last seen, if it folds into it: the same kind, subject and text, of the same
 * file or not, last seen within `gapSeconds`; among the entries it may fold into (foldableFrom) if it passes through,
 * else the last entry alone (another file behind the path again: after a burst, a line of its own). Else -1.
 */
function repeatedAt(out: readonly ActivityEvent[], e: ActivityEvent, gapSeconds: number): number {
	const passes = passesThrough(e);
	const from = passes ? foldableFrom(out) : out.length - 1;
	for (let i = out.length - 1; i >= Math.max(from, 0); i--) {
		const o = out[i]!;
		if (o.kind === e.kind && o.subject === e.subject && o.text === e.text && passesThrough(o) === passes) {
			const last = o.repeated?.until ?? o.at;
			return e.at >= last && e.at - last <= gapSeconds ? i : -1;
		}
	}

	return -1;
}

/** Where in `out` the burst a `messages` event at `at` joins is: the last, if within `gapSeconds` of it. Else -1. */
function openBurstAt(out: readonly ActivityEvent[], at: number, gapSeconds: number): number {
	const from = foldableFrom(out);
	for (let i = out.length - 1; i >= from; i--) {
		const o = out[i]!;
		if (o.burst) {
			return at - o.burst.until <= gapSeconds && at >= o.at ? i : -1;
		}
	}

	return -1;
}

function burstText(b: Burst, last: ActivityEvent): string {
	if (b.sessions.length === 1) {
		return (
			`+${b.messages} message${b.messages === 1 ? '' : 's'} ` +
			`in ${last.subject}${last.label ? ` (${last.label})` : ''}`
		);
	}

	return `+${b.messages} messages in ${b.sessions.length} sessions`;
}

/** `ids` without those in `added`: a loop, not a callback made per call (issue #26). */
function without(ids: readonly string[], added: readonly string[]): string[] {
	const out: string[] = [];
	for (const id of ids) {
		if (!added.includes(id)) {
			out.push(id);
		}
	}

	return out;
}

/**
 * Appends events (oldest first) to a timeline, folding routine ones: a `messages` event joins the
 * burst at the end of the timeline (past notices that pass through it) when it came within
 * `gapSeconds` of it, and the burst is replaced by a new entry (so it updates in place); any other
 * event ends the burst, but a notice seen again (isRepeatable, repeatedAt) is counted on its first
 * line instead. Pure.
 */
export function foldActivity(
	timeline: readonly ActivityEvent[],
	events: readonly ActivityEvent[],
	gapSeconds = BURST_GAP_S,
): ActivityEvent[] {
	const out = [...timeline];
	for (const e of events) {
		if (!isRoutine(e)) {
			const at = isRepeatable(e) ? repeatedAt(out, e, gapSeconds) : -1;
			if (at >= 0) {
				out[at] = {...out[at]!, repeated: {times: (out[at]!.repeated?.times ?? 1) + 1, until: e.at}};
			} else {
				out.push(e);
			}

			continue;
		}

		const count = e.burst?.messages ?? e.count ?? 1;
		const openAt = openBurstAt(out, e.at, gapSeconds);
		const open = openAt >= 0 ? {at: out[openAt]!.at, burst: out[openAt]!.burst!} : undefined;
		const added = e.burst?.sessions ?? [e.subject];
		const sessions = [...without(open?.burst.sessions ?? [], added), ...added];
		const burst: Burst = {until: e.at, messages: (open?.burst.messages ?? 0) + count, sessions};
		const entry: ActivityEvent = {
			at: open?.at ?? e.at,
			kind: 'messages',
			subject: e.subject,
			label: e.label,
			burst,
			text: '',
		};
		entry.text = burstText(burst, e);
		if (open) {
			out[openAt] = entry;
		} else {
			out.push(entry);
		}
	}

	return out;
}
