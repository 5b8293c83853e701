/**
 * What each place beside the store means (hermes-incidents §2, §7): a `.jsonl` is a diverted
 * transcript or a legacy one, a spool file will or will not be replayed by Hermes (and why), a
 * retired capture holds turns the live store lacks. Pure: the inventory and the store's rows in.
 */
import type {BeforeImage, GatewayStart, JsonlFile, Places, RetiredCapture, SpoolFile} from '../places.js';
import type {SessionRecord} from '../types.js';

/** A message a hair newer than the row's newest is the same message written twice as REAL. */
const SAME_INSTANT = 0.001;

export type JsonlVerdict = {
	file: JsonlFile;
	kind: 'diverted' | 'legacy' | 'unknown';
	why: string;
	/** Lines newer than the row's newest message (every line when the store lacks the row). */
	turns: number;
	newestAt: number | null;
	/** The oldest of those lines (when the diversion began, as far as this file tells). */
	firstAt: number | null;
};

/** `unknown`: hfx did not read it (a link, a FIFO, unreadable by this user): what it holds is not known. */
export type SpoolVerdict = {file: SpoolFile; replay: 'will' | 'will-not' | 'unknown'; why: string};

export type CaptureVerdict = {
	capture: RetiredCapture;
	at: number | null;
	pid: number | null;
	turns: number;
	newestAt: number | null;
	sessions: number;
};

/** Turns in one file the live store lacks, for one session (or routing key). */
export type TurnsElsewhere = {
	file: string;
	kind: 'diverted' | 'spool' | 'capture';
	sessionId: string | null;
	sessionKey: string | null;
	turns: number;
	newestAt: number | null;
};

export type PlaceVerdicts = {
	home: string;
	diverted: JsonlVerdict[];
	spool: SpoolVerdict[];
	captures: CaptureVerdict[];
	before: BeforeImage[];
	notes: string[];
	/** Every file's turns the live store lacks, newest first. */
	elsewhere: TurnsElsewhere[];
};

/**
 * The largest (sign 1) or smallest (-1) of many numbers, in a loop (a transcript can hold a million lines: no spread).
 */
function extreme(values: readonly number[], sign: 1 | -1): number | null {
	let best: number | null = null;
	for (const v of values) {
		if (best === null || (v - best) * sign > 0) {
			best = v;
		}
	}

	return best;
}

export function judgeJsonl(file: JsonlFile, row: SessionRecord | undefined): JsonlVerdict {
	const times = file.timestamps.filter((t): t is number => t !== null);
	const newest = extreme(times, 1);
	if (file.olderThanRow) {
		return {
			file,
			kind: 'legacy',
			why:
				"last written before the row's newest message: a legacy transcript of " +
				'rows already in the store (not read; Hermes no longer reads it)',
			turns: 0,
			newestAt: null,
			firstAt: null,
		};
	}

	if (file.lines === 0) {
		return {
			file,
			kind: 'unknown',
			why: file.problem ?? 'no line is a JSON object',
			turns: 0,
			newestAt: null,
			firstAt: null,
		};
	}

	if (!row) {
		return {
			file,
			kind: 'diverted',
			why: 'it names a session absent from the store',
			turns: file.lines,
			newestAt: newest,
			firstAt: extreme(times, -1),
		};
	}

	if (times.length === 0) {
		return {
			file,
			kind: 'unknown',
			why: 'no line carries a timestamp: a diverted transcript cannot be told from a legacy one',
			turns: 0,
			newestAt: null,
			firstAt: null,
		};
	}

	const floor = row.newestMessageAt;
	const newer = floor === null ? times : times.filter(t => t > floor + SAME_INSTANT);
	if (newer.length === 0) {
		return {
			file,
			kind: 'legacy',
			why:
				"every line is at or before the row's newest message: a legacy " +
				'transcript of rows already in the store (Hermes no longer reads it)',
			turns: 0,
			newestAt: newest,
			firstAt: null,
		};
	}

	return {
		file,
		kind: 'diverted',
		why:
			floor === null
				? 'the row holds no message; these lines are its turns'
				: `${newer.length} line${newer.length === 1 ? ' is' : 's are'} newer than the row's newest message`,
		turns: newer.length,
		newestAt: extreme(newer, 1),
		firstAt: extreme(newer, -1),
	};
}

const SHAPE_WORDS: Record<SpoolFile['shape'], string> = {
	transcript_cap_drop: 'a message the full transcript queue dropped while state.db refused writes',
	shutdown: 'a message queued at shutdown',
	agent_history: "an agent's unpersisted transcript, saved at shutdown",
	unreadable: 'a spool file',
};

export function shapeWords(file: SpoolFile): string {
	return SHAPE_WORDS[file.shape];
}

export function judgeSpool(file: SpoolFile, start: GatewayStart | null = null): SpoolVerdict {
	if (file.shape === 'unreadable') {
		return file.damaged
			? {file, replay: 'will-not', why: `${file.problem ?? 'damaged'}: Hermes cannot parse it either, and keeps it`}
			: {file, replay: 'unknown', why: `${file.problem ?? 'not read'}: hfx cannot tell what it holds`};
	}

	if (file.shape === 'agent_history') {
		return {
			file,
			replay: 'will-not',
			why: 'Hermes skips agent-history snapshots at start ("meant for manual operator recovery")',
		};
	}

	if (file.sessionId === null) {
		return {
			file,
			replay: 'will-not',
			why: 'it names no session id: Hermes keeps it and logs "Cannot recover pending message … no session_id"',
		};
	}

	if (start !== null && file.mtimeMs / 1000 < start.at) {
		return {
			file,
			replay: 'will-not',
			why:
				`still here after the gateway (pid ${start.pid}) started ` +
				`at ${new Date(Math.floor(start.at) * 1000).toISOString().slice(0, 19).replace('T', ' ')}Z: ` +
				`its start replays and deletes every spool file it can, so Hermes could ` +
				`not or would not replay this one`,
		};
	}

	return file.shape === 'transcript_cap_drop'
		? {
				file,
				replay: 'will',
				why:
					"at the session's next successful flush or the next " +
					'gateway start, with role, content and time only (tool calls and ' +
					'reasoning are not restored)',
			}
		: {
				file,
				replay: 'will',
				why: 'at the next gateway start, as a user message with its original time',
			};
}

export function judgeCapture(capture: RetiredCapture): CaptureVerdict {
	const turns = capture.turns ?? [];
	let newestAt: number | null = null;
	for (const t of turns) {
		if (t.newestAt !== null && (newestAt === null || t.newestAt > newestAt)) {
			newestAt = t.newestAt;
		}
	}

	return {
		capture,
		at: capture.manifest?.capturedAt ?? capture.nameAt,
		pid: capture.manifest?.pid ?? capture.namePid,
		turns: turns.reduce((n, t) => n + t.turns, 0),
		newestAt,
		sessions: turns.length,
	};
}

function elsewhereOf(diverted: JsonlVerdict[], spool: SpoolVerdict[], captures: CaptureVerdict[]): TurnsElsewhere[] {
	const out: TurnsElsewhere[] = [
		...diverted
			.filter(v => v.kind === 'diverted' && v.turns > 0)
			.map(v => ({
				file: v.file.path,
				kind: 'diverted' as const,
				sessionId: v.file.sessionId,
				sessionKey: null,
				turns: v.turns,
				newestAt: v.newestAt,
			})),
		...spool
			.filter(v => v.file.messages > 0)
			.map(v => ({
				file: v.file.path,
				kind: 'spool' as const,
				sessionId: v.file.sessionId,
				sessionKey: v.file.shape === 'shutdown' ? v.file.sessionKey : null,
				turns: v.file.messages,
				newestAt: v.file.newestAt,
			})),
		...captures.flatMap(c =>
			(c.capture.turns ?? []).map(t => ({
				file: c.capture.path,
				kind: 'capture' as const,
				sessionId: t.sessionId,
				sessionKey: null,
				turns: t.turns,
				newestAt: t.newestAt,
			})),
		),
	];
	return out.sort((a, b) => (b.newestAt ?? 0) - (a.newestAt ?? 0));
}

export function judgePlaces(places: Places, byId: ReadonlyMap<string, SessionRecord>): PlaceVerdicts {
	const diverted = places.diverted.map(f => judgeJsonl(f, byId.get(f.sessionId)));
	const spool = places.spool.map(f => judgeSpool(f, places.gatewayStart));
	const captures = places.captures.map(judgeCapture);
	return {
		home: places.home,
		diverted,
		spool,
		captures,
		before: places.before,
		notes: places.notes,
		elsewhere: elsewhereOf(diverted, spool, captures),
	};
}
