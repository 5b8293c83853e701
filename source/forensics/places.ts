/**
 * Every other place the conversation can be (hermes-incidents §2), as the store floor read them:
 * diverted `sessions/<id>.jsonl` transcripts, `pending_messages/pending-*.json` spool files,
 * `state.db.retired-wal-*` captures and the "before" images (emergency snapshots, quick
 * snapshots, backup zips). Plain data in Hermes' words; nothing here reads a file.
 */

/** What could not be read of a file (a link, a FIFO, unreadable, over the size hfx reads), or null. */
export type PlaceProblem = string | null;

/** One `sessions/<name>.jsonl`: its lines as Hermes appended them (every key optional). */
export type JsonlFile = {
	path: string;
	/** The file name without `.jsonl`: the session id a diverted transcript is written for. */
	sessionId: string;
	size: number;
	mtimeMs: number;
	/** Lines that parse as a JSON object. */
	lines: number;
	/** Lines that are not a JSON object (a last incomplete line counts here too). */
	invalidLines: number;
	/** The last line has no newline and does not parse: an append cut short. */
	incompleteLast: boolean;
	/** Every line's `timestamp` read as epoch seconds (null where absent or unusable), in file order. */
	timestamps: Array<number | null>;
	problem: PlaceProblem;
	/** Not read: last written before its row's newest message (a legacy transcript; a home can hold thousands). */
	olderThanRow: boolean;
};

/** The three payload shapes of the gateway spool, told apart by `reason` (§2.2). */
export type SpoolShape = 'transcript_cap_drop' | 'shutdown' | 'agent_history' | 'unreadable';

export type SpoolFile = {
	path: string;
	name: string;
	size: number;
	mtimeMs: number;
	shape: SpoolShape;
	/** `reason` as written ('' when absent). */
	reason: string;
	/** The routing key (`session_key`) of a shutdown payload; a cap drop's holds the session id. */
	sessionKey: string | null;
	/** The session the payload's turns belong to: `data.session_id` / `session_id`; null = none named. */
	sessionId: string | null;
	/** `ts` (epoch seconds), or null. */
	ts: number | null;
	/**
	 * Messages the payload holds (1 for a cap drop or a shutdown payload with text; `count` of an agent-history
	 * snapshot).
	 */
	messages: number;
	/** The newest message time it holds: a message's `timestamp`, else `ts`. */
	newestAt: number | null;
	problem: PlaceProblem;
	/** It was read and is not a JSON object: damage (a spool file is published whole). */
	damaged: boolean;
};

/** One session's messages in a retired capture's copied image newer than the live store's newest for it. */
export type CaptureSessionTurns = {sessionId: string; turns: number; newestAt: number | null; inLiveStore: boolean};

export type RetiredCapture = {
	path: string;
	name: string;
	/** Staged as `….partial` and never renamed: the capture did not complete. */
	partial: boolean;
	/** From the name: the UTC capture time (epoch seconds) and the pid of the process that captured. */
	nameAt: number | null;
	namePid: number | null;
	/** From manifest.json (null when absent or unreadable). */
	manifest: {
		pid: number | null;
		capturedAt: number | null;
		trigger: string | null;
		database: string | null;
		mainMode: string | null;
		walBytes: number | null;
	} | null;
	manifestProblem: PlaceProblem;
	/** The names inside the folder. */
	files: string[];
	/** The copied image's turns the live store lacks, read from a private copy (null when not readable). */
	turns: CaptureSessionTurns[] | null;
	imageProblem: PlaceProblem;
};

export type BeforeImageKind = 'emergency-snapshot' | 'quick-snapshot' | 'backup-zip' | 'replaced-store';

/** A "before" image or a store Hermes set aside (§2.4–2.6): listed, never replayed. */
export type BeforeImage = {
	path: string;
	name: string;
	kind: BeforeImageKind;
	at: number | null;
	pid: number | null;
	size: number | null;
	problem: PlaceProblem;
};

/** The home's gateway, running now, and when it started (epoch seconds): its start replayed the spool. */
export type GatewayStart = {pid: number; at: number};

/** Everything found beside one store. */
export type Places = {
	home: string;
	/** Null when no gateway of this home runs now (or its state file cannot be trusted). */
	gatewayStart: GatewayStart | null;
	diverted: JsonlFile[];
	spool: SpoolFile[];
	captures: RetiredCapture[];
	before: BeforeImage[];
	/** Folders or files skipped as a whole (a linked `sessions/`, too many files), in words. */
	notes: string[];
};

/** `YYYYmmdd-HHMMSS` (UTC) as epoch seconds, or null. */
export function compactUtc(text: string): number | null {
	const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/.exec(text);
	if (!m) {
		return null;
	}

	const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
	return Number.isFinite(ms) ? ms / 1000 : null;
}

/** A capture folder's name: `state.db.retired-wal-<UTC YYYYmmdd-HHMMSS>-<pid>[-N][.partial]`. */
export function parseCaptureName(name: string): {at: number | null; pid: number | null; partial: boolean} | null {
	const m = /^state\.db\.retired-wal-(\d{8}-\d{6})-(\d+)(?:-\d+)?(\.partial)?$/.exec(name);
	if (!m) {
		return name.startsWith('state.db.retired-wal-') ? {at: null, pid: null, partial: name.endsWith('.partial')} : null;
	}

	return {at: compactUtc(m[1]!), pid: Number(m[2]), partial: m[3] !== undefined};
}

/** A timestamp cell of a JSON line or payload as epoch seconds: a number, a numeric string or an ISO time. */
export function epochOf(value: unknown): number | null {
	if (typeof value === 'number') {
		return Number.isFinite(value) && value > 0 ? (value > 1e12 ? value / 1000 : value) : null;
	}

	if (typeof value !== 'string' || value.trim() === '') {
		return null;
	}

	if (/^\d+(\.\d+)?$/.test(value.trim())) {
		return epochOf(Number(value));
	}

	const ms = Date.parse(value);
	return Number.isFinite(ms) ? ms / 1000 : null;
}
