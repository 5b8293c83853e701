/**
 * Plain data the store hands to the forensic engine. No I/O, no classes: a snapshot of rows.
 * Names follow Hermes' own columns (docs/hermes-rules.md, identity).
 */
import type {RuleSet} from './generations.js';
import type {Places} from './places.js';
import type {MissingColumn} from './rule-columns.js';

export type {RuleSet} from './generations.js';

/** A numeric cell as stored: a finite number, null, or something else (TEXT garbage, a salvaged double). */
export type Cell = number | string | bigint | Buffer | null;

export type SessionRecord = {
	id: string;
	/** `sessions.source` exactly as stored ('' when NULL). */
	source: string;
	userId: string | null;
	sessionKey: string | null;
	chatId: string | null;
	chatType: string | null;
	threadId: string | null;
	displayName: string | null;
	parentSessionId: string | null;
	/** Raw cells: restart SQL in Hermes orders on them without an epoch window. */
	startedAtRaw: Cell;
	endedAtRaw: Cell;
	lastActivityAtRaw: Cell;
	endReason: string | null;
	/** Denormalised `sessions.message_count` (0 when NULL or absent). */
	messageCountColumn: number;
	/** At least one `messages` row exists for this id. */
	hasMessageRows: boolean;
	/** MAX(messages.timestamp) among in-window timestamps, or null. */
	newestMessageAt: number | null;
	/** MAX(messages.timestamp) as SQLite orders cells, with no window (v25's "last active" uses it). */
	newestMessageRaw: Cell;
	/** `COUNT(*)` of message rows, when it was read (orphan candidates and on demand); else null. */
	messageRows: number | null;
	profileName: string | null;
	handoffState: string | null;
	title: string | null;
	model: string | null;
	/** Lineage markers parsed from `model_config` (null when absent or the JSON is invalid). */
	branchedFrom: string | null;
	delegateFrom: string | null;
	resetFrom: string | null;
	/** `model_config` is set but is not valid JSON (v25's repair-routing fails on such a row). */
	modelConfigInvalid: boolean;
	inputTokens: number;
	outputTokens: number;
	cacheReadTokens: number;
	cacheWriteTokens: number;
	reasoningTokens: number;
	toolCallCount: number;
};

/** One row of `gateway_routing` (the primary copy of the gateway's routing index). */
export type RoutingEntry = {
	scope: string;
	sessionKey: string;
	/** `entry_json.session_id`: the session the gateway routes this chat to. */
	sessionId: string | null;
	updatedAt: number | null;
	/** Set when entry_json is not valid JSON or lacks a session_id. */
	problem: string | null;
};

export type StoreFacts = {
	/**
	 * The store's owner profile derived from its path, as Hermes does: `…/profiles/<name>/state.db`
	 * is `<name>`, any other store is "default". Never unknown: Hermes always has one.
	 */
	owner: string;
	/** The generation of rules that wrote the store (generations.ts). */
	ruleSet: RuleSet;
	/**
	 * realpath of the store's own sessions folder: only gateway_routing rows of this scope decide; null = the table has
	 * no scope column.
	 */
	routingScope: string | null;
	/** Entries of the legacy mirror `sessions/sessions.json`, imported for keys gateway_routing lacks. */
	legacyRouting: RoutingEntry[];
	/** Columns the rules decide on that this store lacks (rule-columns.ts): each is a finding. */
	missingColumns?: readonly MissingColumn[];
};

/**
 * One pair whose message timelines the store reads: a keyless row and the keyed row written around it
 * (rollback-pairs.ts).
 */
export type ProbePair = {orphanId: string; keyedId: string};

/** What the store read of one pair's messages (timestamps in epoch seconds, in the epoch window). */
export type RestartProbe = ProbePair & {
	orphan: {
		firstAt: number;
		lastAt: number;
		messages: number;
		firstPlatformId: number | null;
		lastPlatformId: number | null;
	};
	/** K's last message at or before the orphan's first (tA), and how many K holds up to it. */
	before: {at: number; messages: number; platformId: number | null} | null;
	/** K's last message strictly before the orphan's last (for a keyed sibling: where K stood while it was newer). */
	lastBefore: number | null;
	/** K's messages strictly inside the orphan's span (any one breaks the signature). */
	inside: number;
	/** K's messages at or after the orphan's last: the first (tR), the last, and how many. */
	after: {at: number; lastAt: number; messages: number; userTurns: number; platformId: number | null} | null;
};

export type Snapshot = StoreFacts & {
	sessions: SessionRecord[];
	routing: RoutingEntry[];
	/** The message timelines of the pairs rollback-pairs.ts names (absent: none were read). */
	restartProbes?: RestartProbe[];
	/** The places beside the store where Hermes keeps turns state.db did not take (absent: not read). */
	places?: Places;
};
