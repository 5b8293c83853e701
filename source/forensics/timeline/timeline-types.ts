/**
 * The plain data of a chat's timeline (hfx timeline): what the store hands in (message spans,
 * gateway log lines with their instants) and what the builder gives out (rows and events on one
 * time axis, each inferred event with its certainty and evidence, hermes-incidents.md §7).
 */
import type {ChatRow} from './chat-rows.js';
import type {LogLine} from './gateway-log-lines.js';
import type {Certainty, Rollback} from '../rollbacks/rollbacks.js';

/** A run of one row's messages with no silence longer than the timeline's span gap inside it. */
export type MessageSpan = {sessionId: string; firstAt: number; lastAt: number; messages: number};

/** A §6.2 log line, placed in time: its asctime read as local time at the offset the reader assumed. */
export type TimedLogLine = LogLine & {
	at: number;
	/** The file's name under logs/ and the line's number in what was read of it. */
	file: string;
	lineNumber: number;
	/** The UTC offset its asctime was read at, `+01:00`. */
	offset: string;
};

export type TimelineRow = ChatRow & {
	source: string;
	keyed: boolean;
	createdAt: number | null;
	/** The last message: when the row fell quiet. */
	lastMessageAt: number | null;
	endedAt: number | null;
	endReason: string | null;
	/** Messages with a usable timestamp (the spans' sum). */
	messages: number;
	spans: MessageSpan[];
	/** The routing entry names it now. */
	routedNow: boolean;
};

export type EventKind =
	| 'created'
	| 'rotation'
	| 'fork'
	| 'messages'
	| 'ended'
	| 'log'
	| 'routing'
	| 'restart'
	| 'resume'
	| 'if-restart-now'
	| 'before-image';

export type TimelineEvent = {
	at: number;
	kind: EventKind;
	/** The row it is about, if one. */
	sessionId: string | null;
	text: string;
	certainty: Certainty;
	/** Why hfx says so, one fact each (empty for what is read directly). */
	evidence: string[];
	/** A `messages` event: how many messages the span holds. */
	messages?: number;
};

/** Point 4: what a restart now would do to a chat at rollback risk. */
export type RestartNow = {
	resumes: string | null;
	via: string;
	/** The resumed row's last message, and how old it is now. */
	resumesLastAt: number | null;
	ageSeconds: number | null;
	/** What it would leave out: the newest row's messages. */
	leftOut: {sessionId: string; messages: number; firstAt: number | null; lastAt: number | null} | null;
	reason: string | null;
};

export type Timeline = {
	sessionKey: string;
	rows: TimelineRow[];
	/** Ordered by time (message timestamps and the files' own times), never by lineage. */
	events: TimelineEvent[];
	/** Messages are split into spans at silences longer than this. */
	spanGapSeconds: number;
	/** Set where the chat is at rollback risk today. */
	restartNow: RestartNow | null;
	/** The rollbacks that already happened to this chat (forensics/rollbacks/rollbacks.ts), as detected. */
	rollbacks: Rollback[];
	/** When the store was read (the "now" of the last events). */
	now: number;
};
