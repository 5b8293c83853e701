/**
 * One chat's story on one time axis (hfx timeline; issue #23 point 3, hermes-incidents.md §1.1-1.4,
 * §6, §7): every row of the chat with why it belongs, its messages as spans, the rotations
 * (compression, reset, /new), the fork (a keyless row's birth), the inferred restart and the
 * resume, the routing entry's moves, the gateway's log lines, and, where the chat is at rollback
 * risk, what a restart now would do. Ordered by time, never by lineage (§1.4: after an adoption,
 * lineage reads K → O although K holds the later turns). Pure: plain data in, events out.
 */
import {BOUNDARY_END_REASONS, REPAIR_END_REASON} from '../end-reasons.js';
import type {ChatRow} from './chat-rows.js';
import {duration} from '../duration.js';
import {GATEWAY_WIDE} from './gateway-log-lines.js';
import type {Lineage} from '../lineage/lineage.js';
import {suffixOf} from '../resolve.js';
import type {ChatRouting} from '../routing/routing.js';
import type {Rollback} from '../rollbacks/rollbacks.js';
import {inWindow} from '../time.js';
import {routingEvents} from './timeline-routing.js';
import type {
	EventKind,
	MessageSpan,
	RestartNow,
	TimedLogLine,
	Timeline,
	TimelineEvent,
	TimelineRow,
} from './timeline-types.js';
import type {RoutingEntry, SessionRecord} from '../types.js';

export type * from './timeline-types.js';

/**
 * Spans split at silences longer than 6 h: a night or a working day's break, shorter than the days a rollback skips.
 */
export const SPAN_GAP_SECONDS = 6 * 3600;
const MIN_SPAN_GAP_SECONDS = 600;

/**
 * The silence that splits a row's messages into spans: 6 h, or less where a rollback's gap in the
 * resumed row is shorter (so the jump back is always a span boundary), never under 10 minutes.
 */
export function spanGapFor(rollbacks: readonly Pick<Rollback, 'jumpedFrom' | 'resumedAt'>[]): number {
	const gaps = rollbacks.map(r => r.resumedAt - r.jumpedFrom - 1);
	return Math.max(MIN_SPAN_GAP_SECONDS, Math.min(SPAN_GAP_SECONDS, ...gaps));
}

export type TimelineInput = {
	sessionKey: string;
	rows: readonly ChatRow[];
	byId: ReadonlyMap<string, SessionRecord>;
	lineage: Lineage;
	/** Every span of the rows' messages, from the store (any order). */
	spans: readonly MessageSpan[];
	spanGapSeconds: number;
	/** Every rollback of the store (this chat's are picked). */
	rollbacks: readonly Rollback[];
	chat: ChatRouting | undefined;
	routing: readonly RoutingEntry[];
	routingScope: string | null;
	legacyRouting: readonly RoutingEntry[];
	logs: readonly TimedLogLine[];
	now: number;
};

/**
 * At one instant: what the logs say, the restart and the resume it caused, a row's birth, its messages, its end,
 * routing, then the prediction.
 */
const RANK: Record<EventKind, number> = {
	'before-image': 0,
	log: 0,
	restart: 1,
	resume: 2,
	created: 3,
	rotation: 3,
	fork: 3,
	messages: 4,
	ended: 5,
	routing: 6,
	'if-restart-now': 7,
};

/** The time axis' order: by time, then by kind at one instant, then by row. */
export function byTime(a: TimelineEvent, b: TimelineEvent): number {
	return a.at - b.at || RANK[a.kind] - RANK[b.kind] || ((a.sessionId ?? '') < (b.sessionId ?? '') ? -1 : 1);
}

function timelineRows(input: TimelineInput): TimelineRow[] {
	const spansOf = new Map<string, MessageSpan[]>();
	for (const s of input.spans) {
		const list = spansOf.get(s.sessionId) ?? [];
		list.push(s);
		spansOf.set(s.sessionId, list);
	}

	const routed = input.chat?.routingEntry;
	return input.rows.map(row => {
		const s = input.byId.get(row.id);
		const own = spansOf.get(row.id);
		const spans = own === undefined ? [] : own.length > 1 ? own.sort((a, b) => a.firstAt - b.firstAt) : own;
		let messages = 0;
		for (const x of spans) {
			messages += x.messages;
		}

		return {
			id: row.id,
			via: row.via,
			evidence: row.evidence,
			certainty: row.certainty,
			source: s?.source ?? '',
			keyed: Boolean(s?.sessionKey),
			createdAt: s ? inWindow(s.startedAtRaw) : null,
			lastMessageAt: spans.at(-1)?.lastAt ?? null,
			endedAt: s ? inWindow(s.endedAtRaw) : null,
			endReason: s?.endReason ?? null,
			messages,
			spans,
			routedNow: routed === row.id,
		};
	});
}

/**
 * The row a keyed row rotated from: its lineage parent in the chat, else (a /new or reset with no link) the keyed row
 * that ended last before it began.
 */
function predecessorOf(
	row: TimelineRow,
	rows: ReadonlyMap<string, TimelineRow>,
	ended: readonly TimelineRow[],
	lineage: Lineage,
): {parent: TimelineRow; linked: string | null} | null {
	const edge = lineage.parentEdge.get(row.id);
	const parent = edge ? rows.get(edge.parentId) : undefined;
	// A repair's link is written at the adoption, long after the child began (§1.4): not its birth.
	if (edge && parent && edge.kind !== 'delegate' && edge.kind !== 'repair') {
		return {
			parent,
			linked:
				`${edge.kind}: ${edge.via === 'marker' ? 'a model_config marker' : `parent_session_id = ${edge.parentId}`} ` +
				`(${edge.rule})`,
		};
	}

	if (!row.keyed || row.createdAt === null) {
		return null;
	}

	// The last end stamp at or before the row's birth (ended is sorted by ended_at).
	let lo = 0;
	let hi = ended.length;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (ended[mid]!.endedAt! <= row.createdAt + 5) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}

	const best = ended[lo - 1]?.id === row.id ? ended[lo - 2] : ended[lo - 1];
	return best && best.endedAt! >= row.createdAt - 3600 ? {parent: best, linked: null} : null;
}

function rotationWord(reason: string | null, linked: string | null): string {
	if (linked?.startsWith('branch')) {
		return '/branch';
	}

	if (reason === 'compression') {
		return 'compression rotation';
	}

	return reason === 'new_session' ? '/new' : `reset (${reason ?? 'no end reason'})`;
}

/** A row's end stamp, in words (a repair's retirement says what took the key). */
function endedText(row: TimelineRow, children: readonly {childId: string; kind: string}[]): string {
	const adopted = row.endReason === REPAIR_END_REASON ? children.find(c => c.kind === 'repair') : undefined;
	return (
		`${suffixOf(row.id)} ` +
		`ended ${row.endReason}` +
		(adopted
			? `: ${suffixOf(adopted.childId)} was adopted into its chat (lineage now reads ` +
				`${suffixOf(row.id)} → ${suffixOf(adopted.childId)}, though the time axis says otherwise)`
			: '')
	);
}

/** The keyed row's message that came last at or before `at` (the chat's last word before a fork). */
function lastKeyedBefore(at: number, rows: readonly TimelineRow[]): {id: string; at: number} | null {
	let best: {id: string; at: number} | null = null;
	for (const r of rows) {
		for (const s of r.keyed ? r.spans : []) {
			const last = s.lastAt <= at ? s.lastAt : s.firstAt <= at ? s.firstAt : null;
			if (last !== null && (best === null || last > best.at)) {
				best = {id: r.id, at: last};
			}
		}
	}

	return best;
}

/** A keyless row attributed to the chat (not by lineage alone): where the chat went on without its key. */
function keylessFork(row: TimelineRow, at: number, rows: readonly TimelineRow[]): TimelineEvent {
	const before = lastKeyedBefore(at, rows);
	const after = before ? ` ${duration(at - before.at)} after ${suffixOf(before.id)}'s last message` : '';
	return {
		at,
		kind: 'fork',
		sessionId: row.id,
		certainty: row.certainty,
		text: `keyless ${suffixOf(row.id)} born${after}; the chat went on in it`,
		evidence: row.evidence,
	};
}

/** A row's birth: a rotation from its predecessor, a keyless fork, or a plain creation. */
function birthEvent(
	row: TimelineRow,
	pred: ReturnType<typeof predecessorOf>,
	forks: ReadonlyMap<string, Rollback>,
	rows: readonly TimelineRow[],
): TimelineEvent | null {
	const at = row.createdAt ?? row.spans[0]?.firstAt ?? null;
	if (at === null) {
		return null;
	}

	const fork = forks.get(row.id);
	if (fork) {
		const s = fork.skipped;
		return {
			at,
			kind: 'fork',
			sessionId: row.id,
			certainty: s.certainty,
			text:
				`keyless ${suffixOf(row.id)} born ${duration(s.forkSeconds)} ` +
				`after ${suffixOf(fork.resumedId)}'s last message; the chat went on in it`,
			evidence: s.evidence,
		};
	}

	if (pred) {
		const p = pred.parent;
		const word = rotationWord(p.endReason, pred.linked);
		const evidence =
			pred.linked ??
			`${suffixOf(p.id)} ended ${p.endReason ?? '(no end reason)'} ` +
				`at ${stamp(p.endedAt)} and ${suffixOf(row.id)} is the next row of the ` +
				`key: no lineage link`;
		return {
			at,
			kind: 'rotation',
			sessionId: row.id,
			certainty: pred.linked ? 'certain' : 'strong',
			text: `${word}: ${suffixOf(p.id)} → ${suffixOf(row.id)}`,
			evidence: [evidence],
		};
	}

	if (!row.keyed && !row.via.every(v => v === 'lineage')) {
		return keylessFork(row, at, rows);
	}

	const how = row.keyed ? 'keyed row' : 'keyless row';
	return {
		at,
		kind: 'created',
		sessionId: row.id,
		certainty: row.certainty,
		text: `${how} ${suffixOf(row.id)} created`,
		evidence: row.keyed ? NONE : row.evidence,
	};
}

/**
 * The evidence of what is read directly: none (one shared, frozen list: a chat can have tens of thousands of such
 * events).
 */
const NONE = Object.freeze([]) as unknown as string[];

/** The last day written out (spans of a chat come day after day: its date is formatted once). */
let lastDay = {day: Number.NaN, text: ''};

/** `YYYY-MM-DD HH:MM` (UTC) of an epoch. */
function minute(epoch: number): string {
	const day = Math.floor(epoch / 86_400);
	if (day !== lastDay.day) {
		lastDay = {day, text: new Date(day * 86_400_000).toISOString().slice(0, 10)};
	}

	const second = Math.floor(epoch - day * 86_400);
	const two = (n: number) => (n < 10 ? `0${n}` : String(n));
	return `${lastDay.text} ${two(Math.floor(second / 3600))}:${two(Math.floor((second % 3600) / 60))}`;
}

/** One span of a row's messages, as an event. */
function messagesEvent(row: TimelineRow, short: string, span: MessageSpan): TimelineEvent {
	const n = span.messages;
	const until =
		span.lastAt > span.firstAt ? ` until ${minute(span.lastAt)} (${duration(span.lastAt - span.firstAt)})` : '';
	return {
		at: span.firstAt,
		kind: 'messages',
		sessionId: row.id,
		certainty: 'certain',
		messages: n,
		text: `${short}: ${n} message${n === 1 ? '' : 's'}${until}`,
		evidence: NONE,
	};
}

function stamp(epoch: number | null): string {
	return epoch === null ? '—' : `${new Date(epoch * 1000).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

function rowEvents(
	rows: readonly TimelineRow[],
	input: TimelineInput,
	forks: ReadonlyMap<string, Rollback>,
): TimelineEvent[] {
	const byId = new Map<string, TimelineRow>();
	for (const r of rows) {
		byId.set(r.id, r);
	}

	const ended = rows
		.filter(
			r =>
				r.keyed &&
				r.endedAt !== null &&
				r.endReason !== null &&
				(BOUNDARY_END_REASONS.has(r.endReason) || r.endReason === 'compression'),
		)
		.sort((a, b) => a.endedAt! - b.endedAt!);
	const rotatedFrom = new Set<string>();
	const events: TimelineEvent[] = [];
	for (const row of rows) {
		const pred = forks.has(row.id) ? null : predecessorOf(row, byId, ended, input.lineage);
		const birth = birthEvent(row, pred, forks, rows);
		if (birth) {
			events.push(birth);
			if (birth.kind === 'rotation') {
				rotatedFrom.add(pred!.parent.id);
			}
		}

		const short = suffixOf(row.id);
		for (const span of row.spans) {
			events.push(messagesEvent(row, short, span));
		}
	}

	for (const row of rows) {
		if (row.endedAt !== null && row.endReason !== null && !rotatedFrom.has(row.id)) {
			events.push({
				at: row.endedAt,
				kind: 'ended',
				sessionId: row.id,
				certainty: 'certain',
				text: endedText(row, input.lineage.children.get(row.id) ?? []),
				evidence: NONE,
			});
		}
	}

	return events;
}

/** The kinds of line a restart's recovery of the chat's entry logs (a cold start with no entry logs none). */
const RECOVERY: ReadonlySet<TimedLogLine['kind']> = new Set(['repoint', 'prune', 'stale-entry-dropped']);

/**
 * Lines inside the rollback's bounds where the gateway recovered this chat's entry: they say which row it moved from
 * and to.
 */
function recoveryLines(r: Rollback, logs: readonly TimedLogLine[]): string[] {
	return logs
		.filter(
			l =>
				RECOVERY.has(l.kind) &&
				l.at > r.skipped.lastAt &&
				l.at <= r.resumedAt &&
				(l.sessionKey === r.sessionKey || l.ids.includes(r.resumedId)),
		)
		.map(l => `${l.file}:${l.lineNumber} at ${l.asctime} (local, read as UTC${l.offset}): ${l.message}`);
}

/**
 * The restart a rollback implies: placed at the last gateway start logged before tR, else the routing rewrite, else
 * only bounded.
 */
function restartEvent(r: Rollback, logs: readonly TimedLogLine[]): TimelineEvent {
	const from = r.skipped.lastAt;
	const starts = logs.filter(l => l.kind === 'gateway-start' && l.at > from && l.at <= r.resumedAt);
	const start = starts.at(-1);
	const bound =
		`not before ${suffixOf(r.skipped.id)}'s last message (${stamp(from)}), ` +
		`not after ${suffixOf(r.resumedId)}'s first message after its gap ` +
		`(${stamp(r.resumedAt)})`;
	const evidence = [`the rollback's bounds: ${bound}`];
	if (start) {
		evidence.push(
			`${start.file}:${start.lineNumber} logged "Starting Hermes Gateway..." ` +
				`at ${start.asctime} (local, read as UTC${start.offset})`,
		);
	}

	if (r.routingRewriteAt !== null) {
		evidence.push(
			`gateway_routing rows of the scope share ` +
				`updated_at ${stamp(r.routingRewriteAt)}: the structural save that ` +
				`published ${suffixOf(r.resumedId)}`,
		);
	}

	evidence.push(...recoveryLines(r, logs));
	const at = start?.at ?? r.routingRewriteAt ?? r.resumedAt;
	const anchored = start !== undefined || r.routingRewriteAt !== null;
	if (!anchored) {
		evidence.push('no log line or routing rewrite dates it: the instant is only bounded (weak)');
	}

	return {
		at,
		kind: 'restart',
		sessionId: r.resumedId,
		certainty: anchored ? 'strong' : 'weak',
		text:
			`gateway restart ` +
			`(inferred)` +
			(start
				? ': a start is logged here'
				: r.routingRewriteAt === null
					? ': at the latest here'
					: ': the routing index was rewritten here'),
		evidence,
	};
}

function routedWords(r: Rollback): string {
	if (r.routedTo === null) {
		return 'gateway_routing has no entry for this chat: the restart found the row with its finder';
	}

	return r.routedTo === r.resumedId
		? `gateway_routing names ${suffixOf(r.resumedId)} now (certain)`
		: `gateway_routing names ${suffixOf(r.routedTo)} now`;
}

function resumeEvent(r: Rollback): TimelineEvent {
	const turns = `${r.after.userTurns} user turn${r.after.userTurns === 1 ? '' : 's'} (${r.after.messages} messages)`;
	return {
		at: r.resumedAt,
		kind: 'resume',
		sessionId: r.resumedId,
		certainty: r.certainty,
		text:
			`ROLLED BACK: the chat resumed ${suffixOf(r.resumedId)}, a ` +
			`context ${duration(r.resumedAt - r.jumpedFrom)} old; ${turns} written ` +
			`into it since, the last at ${stamp(r.after.lastAt).slice(0, 16)}`,
		evidence: [
			`${suffixOf(r.resumedId)}'s messages stop at ${stamp(r.jumpedFrom)} and ` +
				`start again ` +
				`here; ${r.skipped.kind === 'keyless' ? 'the keyless' : 'the newer same-key row'} ${suffixOf(r.skipped.id)} ` +
				`(${r.skipped.messages} ` +
				`messages) ${r.skipped.kind === 'keyless' ? 'fills the gap' : 'was passed over'}`,
			routedWords(r),
			...r.alsoSkipped.map(a => `also inside the gap: ${suffixOf(a.id)} (${a.messages} messages)`),
		],
	};
}

/** Gateway-wide lines within the chat's life, and lines naming its key or one of its rows. */
function logEvents(
	logs: readonly TimedLogLine[],
	key: string,
	ids: ReadonlySet<string>,
	since: number | null,
): TimelineEvent[] {
	return logs
		.filter(l =>
			GATEWAY_WIDE.has(l.kind)
				? since === null || l.at >= since - 3600
				: l.sessionKey === key || l.ids.some(id => ids.has(id)),
		)
		.map(l => ({
			at: l.at,
			kind: 'log' as const,
			sessionId: l.ids.find(id => ids.has(id)) ?? null,
			certainty: 'certain' as const,
			text: `${l.file}:${l.lineNumber} ${l.level} ${l.message}`,
			evidence: [`asctime ${l.asctime} is local time, read as UTC${l.offset}`],
		}));
}

function restartNowOf(chat: ChatRouting | undefined, rows: readonly TimelineRow[], now: number): RestartNow | null {
	if (!chat?.rollbackRisk) {
		return null;
	}

	const newest = rows.find(r => r.id === chat.newestActivityIn);
	return {
		resumes: chat.restartResolvesTo,
		via: chat.resolution.via,
		resumesLastAt: chat.resolvesToActivityAt,
		ageSeconds: chat.resolvesToActivityAt === null ? null : now - chat.resolvesToActivityAt,
		leftOut: newest
			? {
					sessionId: newest.id,
					messages: newest.messages,
					firstAt: newest.spans[0]?.firstAt ?? null,
					lastAt: newest.lastMessageAt,
				}
			: null,
		reason: chat.rollbackRiskReason,
	};
}

function restartNowEvent(r: RestartNow, now: number): TimelineEvent {
	const resumes =
		r.resumes === null
			? 'it starts a fresh, empty session'
			: `it resumes ${suffixOf(r.resumes)} (via ${r.via}), whose last message is ${duration(r.ageSeconds)} old`;
	const left = r.leftOut
		? `; left out: ${suffixOf(r.leftOut.sessionId)}'s ${r.leftOut.messages} ` +
			`messages, the last at ${stamp(r.leftOut.lastAt).slice(0, 16)}`
		: '';
	return {
		at: now,
		kind: 'if-restart-now',
		sessionId: r.resumes,
		certainty: 'strong',
		text: `if the gateway restarts now: ${resumes}${left}`,
		evidence: [
			r.reason ?? '',
			'what the routing entry names is certain; that the gateway keeps it is ' +
				'strong (the stale-entry self-heal may replace it)',
		].filter(Boolean),
	};
}

/** Rows by when they began (their first message where started_at is unusable). */
function byStart(a: TimelineRow, b: TimelineRow): number {
	return (a.createdAt ?? a.spans[0]?.firstAt ?? 0) - (b.createdAt ?? b.spans[0]?.firstAt ?? 0);
}

export function buildTimeline(input: TimelineInput): Timeline {
	// In time order first: the events of the rows then come out nearly sorted, and sort in one pass.
	const rows = timelineRows(input).sort(byStart);
	const mine = input.rollbacks.filter(r => r.sessionKey === input.sessionKey);
	const forks = new Map(mine.map(r => [r.skipped.id, r]));
	const ids = new Set(rows.map(r => r.id));
	const since = rows.reduce<number | null>(
		(m, r) => (r.createdAt !== null && (m === null || r.createdAt < m) ? r.createdAt : m),
		null,
	);
	const restartNow = restartNowOf(input.chat, rows, input.now);
	const events = rowEvents(rows, input, forks);
	for (const r of mine) {
		events.push(restartEvent(r, input.logs), resumeEvent(r));
	}

	events.push(
		...routingEvents({
			sessionKey: input.sessionKey,
			routing: input.routing,
			routingScope: input.routingScope,
			legacyRouting: input.legacyRouting,
			now: input.now,
		}),
		...logEvents(input.logs, input.sessionKey, ids, since),
	);
	if (restartNow) {
		events.push(restartNowEvent(restartNow, input.now));
	}

	events.sort(byTime);
	return {
		sessionKey: input.sessionKey,
		rollbacks: mine,
		rows,
		events,
		spanGapSeconds: input.spanGapSeconds,
		restartNow,
		now: input.now,
	};
}
