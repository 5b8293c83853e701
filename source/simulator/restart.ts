/**
 * What a Hermes gateway writes when it restarts and resumes a row, and the look-alikes that are not
 * a rollback (docs: ../shared/reference/hermes-incidents.md §1.1 and §2.2; Aug-20 tree
 * `gateway/session.py`). Each function is one gateway step in ONE write transaction, on a
 * read-write connection to a store the simulator made or copied (never an observed store):
 *
 * - `resumeAfterRestart`: §1.1 steps 5–7, the #82616 rollback once it has happened: the zombie
 *   reopened, the whole routing scope rewritten at the restart (one `updated_at` for every key),
 *   then each turn: a message row at its time, activity advanced, the key's routing row upserted
 *   and the peer identity written over the resumed row. `gatewayTurns` is that per-turn step alone.
 * - `compressionRotation`: the parent ended `compression`, a keyed child with its identity.
 * - `resetNew`: `/new` (`reset_session`): the old row promoted to `session_reset`, a new keyed
 *   row with `_reset_from`.
 * - `resetPromotion`: §1.1 step 4 at a restart: the recovered row promoted to a reset reason and a
 *   fresh row minted at the restart instead of a resume.
 * - `replaySpool`: §2.2 `recover_pending_to_db`: spooled user messages appended with their
 *   original, older `ts`.
 *
 * Schema-aware through session-db.ts (real v21/v25 stores and the simulator's v30). The routing
 * scope defaults to the one the gateway whose home holds the store uses (`<home>/sessions`,
 * resolved). `sessions/sessions.json` is not written (see the report of issue #23).
 */
import crypto from 'node:crypto';
import type Database from 'better-sqlite3';
import {routingScopeOf} from '../store/read/routing-home.js';
import {
	type GatewayPeer,
	type StoreShape,
	appendMessage,
	createSession,
	endSession,
	loadGatewayRoutingEntries,
	promoteToSessionReset,
	recordGatewaySessionPeer,
	reopenSession,
	replaceGatewayRoutingEntries,
	saveGatewayRoutingEntry,
	shapeOf,
	touchSessionActivity,
} from './session-db.js';
import {
	type EntryFields,
	type SessionSourceDict,
	gatewaySessionId,
	pythonJson,
	sessionEntryJson,
} from './session-entry.js';

/** One message a gateway turn writes, at its own time. */
export type Turn = {role: string; content: string; at: number; platformMessageId?: string | null};

type Common = {
	sessionKey: string;
	/** Messages written after the step, in order (each one a gateway turn). */
	turns?: readonly Turn[];
	/** The routing scope; default: the resolved `<dir of the store>/sessions`. */
	scope?: string;
};

type Row = Record<string, unknown> & {id: string; source: string; started_at: number; message_count: number | null};

function rowOf(db: Database.Database, id: string): Row {
	const row = db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Row | undefined;
	if (!row) {
		throw new Error(`no session row ${id}`);
	}

	return row;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);

/** The inbound `SessionSource` of the row's chat: its `origin_json` where that parses, its columns otherwise. */
function sourceOfRow(row: Row, identity: Partial<SessionSourceDict> = {}): SessionSourceDict {
	let origin: Record<string, unknown> = {};
	try {
		const parsed = JSON.parse(text(row.origin_json) ?? 'null') as unknown;
		origin = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
	} catch {
		// not JSON: the columns decide
	}

	const pick = (key: string, column: string) => text(origin[key]) ?? text(row[column]);
	return {
		platform: text(origin.platform) ?? row.source,
		chat_id: pick('chat_id', 'chat_id'),
		chat_name: pick('chat_name', 'display_name'),
		chat_type: pick('chat_type', 'chat_type'),
		user_id: pick('user_id', 'user_id'),
		user_name: text(origin.user_name),
		thread_id: pick('thread_id', 'thread_id'),
		chat_topic: text(origin.chat_topic),
		...identity,
	};
}

/** What `_record_gateway_session_peer` passes for an inbound source. */
function peerOf(source: SessionSourceDict): GatewayPeer {
	return {
		source: source.platform,
		userId: source.user_id,
		chatId: source.chat_id,
		chatType: source.chat_type,
		threadId: source.thread_id,
		displayName: source.chat_name,
		originJson: pythonJson(source),
	};
}

/** `_save_entries` for one changed key: every entry of the scope written again, stamped `at`. */
function publish(db: Database.Database, shape: StoreShape, scope: string, entry: EntryFields, at: number): void {
	const entries = loadGatewayRoutingEntries(db, shape, scope);
	entries.set(entry.sessionKey, sessionEntryJson(entry));
	replaceGatewayRoutingEntries(db, shape, entries, scope, at);
}

/** §1.1 step 7 for each turn: the message, the activity stamp, `update_session`'s upsert and peer record. */
function writeTurns(
	db: Database.Database,
	shape: StoreShape,
	scope: string,
	entry: EntryFields,
	turns: readonly Turn[],
): void {
	const peer = peerOf(entry.origin!);
	for (const t of turns) {
		appendMessage(db, shape, entry.sessionId, {
			role: t.role,
			content: t.content,
			timestamp: t.at,
			platformMessageId: t.platformMessageId,
		});
		touchSessionActivity(db, shape, entry.sessionId, t.at);
		entry.updatedAt = t.at;
		saveGatewayRoutingEntry(db, shape, entry.sessionKey, sessionEntryJson(entry), scope, t.at);
		recordGatewaySessionPeer(db, entry.sessionId, entry.sessionKey, peer, t.at);
	}
}

/** A new gateway row's id as the router mints it (local time, 8 hex), deterministic per key and instant. */
export function mintedId(sessionKey: string, at: number): string {
	return gatewaySessionId(at, crypto.createHash('sha256').update(`${sessionKey}@${at}`).digest('hex').slice(0, 8));
}

export type ResumeAfterRestart = Common & {
	/** The row the finder returned (the zombie K). */
	resumedId: string;
	/** The restart's structural save (the first inbound message's recovery). */
	restartAt: number;
	/** The inbound chat, over the row's own identity. */
	identity?: Partial<SessionSourceDict>;
};

/** §1.1 steps 5–7: the resumed row reopened and published at `restartAt`, then the turns written into it. */
export function resumeAfterRestart(db: Database.Database, o: ResumeAfterRestart): void {
	const shape = shapeOf(db);
	const scope = o.scope ?? routingScopeOf(db.name);
	db.transaction(() => {
		const row = rowOf(db, o.resumedId);
		reopenSession(db, shape, o.resumedId);
		const lastActivity = typeof row.last_activity_at === 'number' ? row.last_activity_at : null;
		const entry: EntryFields = {
			sessionKey: o.sessionKey,
			sessionId: o.resumedId,
			createdAt: row.started_at,
			updatedAt: lastActivity ?? row.started_at,
			origin: sourceOfRow(row, o.identity),
			flags: {reset_had_activity: (row.message_count ?? 0) > 0},
		};
		publish(db, shape, scope, entry, o.restartAt);
		writeTurns(db, shape, scope, entry, o.turns ?? []);
	})();
}

/** §1.1 step 7 alone: turns of a chat already routed to `sessionId` (no structural save), in one transaction. */
export function gatewayTurns(db: Database.Database, o: Common & {sessionId: string}): void {
	const shape = shapeOf(db);
	const scope = o.scope ?? routingScopeOf(db.name);
	db.transaction(() => {
		const row = rowOf(db, o.sessionId);
		const entry: EntryFields = {
			sessionKey: o.sessionKey,
			sessionId: o.sessionId,
			createdAt: row.started_at,
			updatedAt: row.started_at,
			origin: sourceOfRow(row),
		};
		writeTurns(db, shape, scope, entry, o.turns ?? []);
	})();
}

/** A gateway row minted as a successor of `from` (identity of its chat, lineage, reset marker or not). */
function mintSuccessor(
	db: Database.Database,
	shape: StoreShape,
	from: Row,
	source: SessionSourceDict,
	o: {sessionKey: string; id: string; at: number; resetFrom: boolean},
): void {
	createSession(db, shape, {
		...peerOf(source),
		id: o.id,
		sessionKey: o.sessionKey,
		startedAt: o.at,
		parentSessionId: from.id,
		modelConfig: o.resetFrom ? {_reset_from: from.id} : null,
		profileName: text(from.profile_name),
	});
}

export type CompressionRotation = Common & {parentId: string; at: number; childId?: string};

/**
 * A compression rotation: parent ended `compression`, its keyed child (identity copied), the route moved to the child.
 */
export function compressionRotation(db: Database.Database, o: CompressionRotation): string {
	const shape = shapeOf(db);
	const scope = o.scope ?? routingScopeOf(db.name);
	const childId = o.childId ?? mintedId(o.sessionKey, o.at);
	db.transaction(() => {
		const parent = rowOf(db, o.parentId);
		const source = sourceOfRow(parent);
		endSession(db, o.parentId, o.at, 'compression');
		createSession(db, shape, {
			...peerOf(source),
			originJson: text(parent.origin_json),
			displayName: text(parent.display_name),
			id: childId,
			sessionKey: o.sessionKey,
			startedAt: o.at,
			parentSessionId: o.parentId,
			modelConfig: null,
			profileName: text(parent.profile_name),
		});
		const entry: EntryFields = {
			sessionKey: o.sessionKey,
			sessionId: childId,
			createdAt: parent.started_at,
			updatedAt: o.at,
			origin: source,
		};
		publish(db, shape, scope, entry, o.at);
		writeTurns(db, shape, scope, entry, o.turns ?? []);
	})();
	return childId;
}

export type ResetNew = Common & {
	oldId: string;
	at: number;
	newId?: string /** Default `session_reset` (the gateway's `/new`). */;
	reason?: string;
};

/**
 * `/new` in a gateway chat (`reset_session`): full rewrite to the new entry, old row promoted, new row with
 * `_reset_from`.
 */
export function resetNew(db: Database.Database, o: ResetNew): string {
	const shape = shapeOf(db);
	const scope = o.scope ?? routingScopeOf(db.name);
	const newId = o.newId ?? mintedId(o.sessionKey, o.at);
	db.transaction(() => {
		const old = rowOf(db, o.oldId);
		const source = sourceOfRow(old);
		const entry: EntryFields = {
			sessionKey: o.sessionKey,
			sessionId: newId,
			createdAt: o.at,
			updatedAt: o.at,
			origin: source,
			flags: {is_fresh_reset: true},
		};
		publish(db, shape, scope, entry, o.at);
		promoteToSessionReset(db, shape, o.oldId, o.at, o.reason ?? 'session_reset');
		mintSuccessor(db, shape, old, source, {sessionKey: o.sessionKey, id: newId, at: o.at, resetFrom: true});
		recordGatewaySessionPeer(db, newId, o.sessionKey, peerOf(source), o.at);
		writeTurns(db, shape, scope, entry, o.turns ?? []);
	})();
	return newId;
}

export type ResetPromotion = Common & {
	recoveredId: string;
	restartAt: number;
	newId?: string /** The policy's reason; default `idle`. */;
	reason?: string;
};

/** §1.1 step 4 at a restart: the recovered row promoted to a reset reason, a fresh row minted and routed instead. */
export function resetPromotion(db: Database.Database, o: ResetPromotion): string {
	const shape = shapeOf(db);
	const scope = o.scope ?? routingScopeOf(db.name);
	const newId = o.newId ?? mintedId(o.sessionKey, o.restartAt);
	const reason = o.reason ?? 'idle';
	db.transaction(() => {
		const recovered = rowOf(db, o.recoveredId);
		const source = sourceOfRow(recovered);
		const entry: EntryFields = {
			sessionKey: o.sessionKey,
			sessionId: newId,
			createdAt: o.restartAt,
			updatedAt: o.restartAt,
			origin: source,
			flags: {
				was_auto_reset: true,
				auto_reset_reason: reason,
				reset_had_activity: (recovered.message_count ?? 0) > 0,
				prev_session_id: o.recoveredId,
			},
		};
		publish(db, shape, scope, entry, o.restartAt);
		promoteToSessionReset(db, shape, o.recoveredId, o.restartAt, reason);
		mintSuccessor(db, shape, recovered, source, {
			sessionKey: o.sessionKey,
			id: newId,
			at: o.restartAt,
			resetFrom: true,
		});
		recordGatewaySessionPeer(db, newId, o.sessionKey, peerOf(source), o.restartAt);
		writeTurns(db, shape, scope, entry, o.turns ?? []);
	})();
	return newId;
}

export type SpooledMessage = {content: string; ts: number; role?: string};

/**
 * §2.2 `recover_pending_to_db`: spooled messages appended as user rows with their original `ts` (no activity stamp, no
 * routing).
 */
export function replaySpool(db: Database.Database, o: {sessionId: string; messages: readonly SpooledMessage[]}): void {
	const shape = shapeOf(db);
	db.transaction(() => {
		rowOf(db, o.sessionId);
		for (const m of o.messages) {
			appendMessage(db, shape, o.sessionId, {role: m.role ?? 'user', content: m.content, timestamp: m.ts});
		}
	})();
}
