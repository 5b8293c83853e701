/**
 * A chat's timeline as text lines (hfx timeline, the TUI's timeline view) and as the --json
 * document: the rows of the chat with why each belongs, then every event on one time axis, each
 * inferred one with its certainty and evidence, wrapped to the width given.
 */
import {duration} from '../../forensics/duration.js';
import type {Membership} from '../../forensics/timeline/chat-rows.js';
import {type Fold, type FoldedRow, foldEvents, foldRows} from '../../forensics/timeline/timeline-fold.js';
import type {EventKind, Timeline, TimelineEvent, TimelineRow} from '../../forensics/timeline/timeline.js';
import type {GatewayLogs} from '../../store/places/gateway-logs.js';
import type {DatabaseFacts} from '../../store/read/load.js';
import type {ChatDiff, RoutingMove} from '../../forensics/analysis/diff.js';
import type {BeforeImageSide} from '../../forensics/timeline/timeline-before.js';
import {utc} from '../../text/format.js';
import {wrapIndented} from '../../text/wrap.js';

/** A short word per kind, in a column of its own (the meaning never rests on colour or a glyph). */
export const EVENT_WORD: Record<EventKind, string> = {
	created: 'created',
	rotation: 'rotation',
	fork: 'FORK',
	messages: 'messages',
	ended: 'ended',
	log: 'log',
	routing: 'routing',
	restart: 'RESTART',
	resume: 'RESUME',
	'if-restart-now': 'IF NOW',
	'before-image': 'BEFORE',
};

/** Kinds read directly from a row, whose certainty goes without saying. */
const PLAIN: ReadonlySet<EventKind> = new Set(['messages', 'ended']);

/** How each way of belonging reads, short. */
const VIA_WORDS: Record<Membership, string> = {
	key: 'key',
	'peer-tuple': 'peer tuple',
	lineage: 'lineage',
	skipped: 'rollback',
	adoptable: 'adoption',
	'same-chat-orphan': 'ambiguous orphan',
};

const TIME = 16;
const WORD = 9;

function rowLines(r: TimelineRow, width: number): string[] {
	const state = r.endReason ? `ended ${r.endReason}` : 'live';
	const head =
		`  ${r.id}  ${r.keyed ? 'keyed' : 'keyless'} ` + ` ${r.source || '—'}${r.routedNow ? '  ◀ routing entry' : ''}`;
	const facts =
		`created ${utc(r.createdAt)} · quiet since ${utc(r.lastMessageAt)} ` +
		`· ${r.messages} message${r.messages === 1 ? '' : 's'} ` +
		`in ${r.spans.length} span${r.spans.length === 1 ? '' : 's'} · ${state}`;
	const why = `belongs (${r.certainty}; by ${r.via.map(v => VIA_WORDS[v]).join(', ')}): ${r.evidence.join('; ')}`;
	return [
		...wrapIndented(head, width, 6),
		...wrapIndented(`      ${facts}`, width, 6),
		...wrapIndented(`      ${why}`, width, 6),
	];
}

/**
 * One event: its time (`now` for what the files say as of the read), its kind, its text and certainty, then its
 * evidence.
 */
export function eventLines(e: TimelineEvent, width: number, now: number): string[] {
	const indent = TIME + 2 + WORD;
	const sure = PLAIN.has(e.kind) ? '' : `  [${e.certainty}]`;
	const when = e.at === now ? 'now'.padEnd(TIME) : utc(e.at);
	const lines = wrapIndented(`${when}  ${EVENT_WORD[e.kind].padEnd(WORD)}${e.text}${sure}`, width, indent);
	for (const fact of e.evidence) {
		lines.push(...wrapIndented(`${' '.repeat(indent)}· ${fact}`, width, indent + 2));
	}

	return lines;
}

function foldLines(f: Fold, width: number): string[] {
	const what = [
		`${f.rotations} compression rotation${f.rotations === 1 ? '' : 's'}`,
		`${f.messages} messages in ${f.spans} span${f.spans === 1 ? '' : 's'}`,
	].join(', ');
	return wrapIndented(
		`${utc(f.at)}  ${'…'.padEnd(WORD)}${f.events} ordinary events of ${f.rows} rows until ${utc(f.lastAt)}: ${what}`,
		width,
		TIME + 2 + WORD,
	);
}

function foldedRowLines(r: FoldedRow, width: number): string[] {
	return 'kind' in r
		? wrapIndented(
				`  … ${r.rows} more rows of the compression chain, ${r.firstId} ` +
					`… ${r.lastId}: ${r.messages} messages (by key and lineage, certain)`,
				width,
				6,
			)
		: rowLines(r, width);
}

/** The summary under the title: the rollback, or what a restart now would do. */
function summary(t: Timeline): string[] {
	const resumes = t.events.filter(e => e.kind === 'resume');
	const lines = resumes.map(e => `! ${e.text} [${e.certainty}]`);
	if (t.restartNow) {
		lines.push(`! ROLLBACK RISK: ${t.events.find(e => e.kind === 'if-restart-now')?.text ?? ''}`);
	}

	return lines.length > 0
		? lines
		: ['no rollback found and none at risk: a restart now resumes the newest conversation'];
}

/** The whole timeline, `width` columns wide. */
export function timelineLines(t: Timeline, width = 80): string[] {
	const lines = [
		...wrapIndented(`timeline of ${t.sessionKey}`, width, 2),
		...wrapIndented(
			`times UTC · read at ${utc(t.now)} · messages in spans split at silences ` +
				`over ${duration(t.spanGapSeconds)} · ordered by time, not lineage`,
			width,
			2,
		),
		...summary(t).flatMap(l => wrapIndented(l, width, 2)),
		'',
		`rows of the chat (${t.rows.length})`,
		...foldRows(t.rows).flatMap(r => foldedRowLines(r, width)),
		'',
		`events (${t.events.length})`,
		...foldEvents(t.events).flatMap(e => (e.kind === 'fold' ? foldLines(e, width) : eventLines(e, width, t.now))),
	];
	return lines;
}

/** What was read of the gateway logs beside the store, in one line. */
export function logNote(logs: Pick<GatewayLogs, 'dir' | 'files' | 'notes'>): string {
	const notes = logs.notes.length > 0 ? `; ${logs.notes.join('; ')}` : '';
	if (logs.files.length === 0) {
		return `no gateway logs read beside the store (${logs.dir}): restarts are placed from the store alone${notes}`;
	}

	return `logs read: ${logs.files.join(', ')} (asctime read as local time of this machine)${notes}`;
}

/** The --json document's timeline part. */
export function timelineJson(t: Timeline): unknown {
	return {
		sessionKey: t.sessionKey,
		now: t.now,
		spanGapSeconds: t.spanGapSeconds,
		rows: t.rows,
		events: t.events,
		restartNow: t.restartNow,
		rollbacks: t.rollbacks,
	};
}

/** A before-image (--before) as the timeline places it: what changed in its chat since, and whether it is placed. */
export type TimelineBefore = {image: BeforeImageSide; chat: ChatDiff | null; routing: RoutingMove[]; placed: boolean};

/** `hfx timeline --json`: the store, the gateway logs read, the before-image, and the timeline. */
export function timelineReportJson(
	facts: Pick<DatabaseFacts, 'path' | 'owner' | 'ruleSet'>,
	logs: Pick<GatewayLogs, 'dir' | 'files' | 'notes'>,
	before: TimelineBefore | null,
	timeline: Timeline,
) {
	return {
		database: facts.path,
		owner: facts.owner,
		ruleSet: facts.ruleSet,
		logs: {dir: logs.dir, files: logs.files, notes: logs.notes},
		before,
		...(timelineJson(timeline) as object),
	};
}
