/**
 * Reads, for each pair forensics/rollbacks/rollback-pairs.ts names, the two message timelines the rollback
 * signature compares (forensics/rollbacks/rollbacks.ts): the orphan's span and platform ids, and the keyed
 * row's last message before it, its messages inside it, and what it got after. Index seeks on
 * `idx_messages_session(session_id, timestamp)` only; a pair whose rows did not change since the
 * last read is not read again, and the live view hands over only the rows a commit changed (the pairs are
 * kept up to date by forensics/rollbacks/pair-index.ts, not found again among every session).
 */
import {LOCAL_SURFACES} from '../../forensics/routing/orphans.js';
import {RollbackPairIndex, type RowChange} from '../../forensics/rollbacks/pair-index.js';
import {type RowPair, rollbackProbePairs} from '../../forensics/rollbacks/rollback-pairs.js';
import type {RestartProbe} from '../../forensics/types.js';
import {EPOCH_MAX, EPOCH_MIN} from '../../forensics/time.js';
import type {SessionRecord} from '../../forensics/types.js';
import type {ReadOnlyStore} from '../open/open.js';
import type {SchemaInfo} from '../open/schema.js';
import {type Steps, drain} from '../../forensics/analysis/steps.js';

type Statement = ReturnType<ReadOnlyStore['prepare']>;
type Statements = {
	span: Statement;
	ids: Statement | null;
	before: Statement;
	lastBefore: Statement;
	inside: Statement;
	after: Statement;
};

const WINDOW = `timestamp >= ${EPOCH_MIN} AND timestamp <= ${EPOCH_MAX}`;
/** Platform ids compared only where every character is a digit (Telegram's per-chat counters). */
const NUMERIC_ID =
	"platform_message_id IS NOT NULL AND platform_message_id <> '' AND platform_message_id NOT GLOB '*[^0-9]*'";

/** The numeric platform id of K's nearest message on one side of @at (NULL where the column is absent). */
function nearestId(schema: SchemaInfo, side: '<=' | '>='): string {
	if (!schema.messageColumns.has('platform_message_id')) {
		return 'NULL';
	}

	const order = side === '<=' ? 'DESC' : 'ASC';
	return (
		`(SELECT CAST(platform_message_id AS INTEGER) FROM messages WHERE ` +
		`session_id = @id AND ${WINDOW} AND timestamp ${side} @at ` +
		`AND ${NUMERIC_ID} ORDER BY timestamp ${order} LIMIT 1)`
	);
}

function statements(store: ReadOnlyStore, schema: SchemaInfo): Statements {
	const user = schema.messageColumns.has('role') ? "total(role = 'user')" : '0';
	const ids = schema.messageColumns.has('platform_message_id')
		? store
				.prepare(
					`SELECT min(CAST(platform_message_id AS INTEGER)), ` +
						`max(CAST(platform_message_id AS INTEGER)) FROM messages WHERE ` +
						`session_id = ? AND ${NUMERIC_ID}`,
				)
				.raw(true)
		: null;
	return {
		span: store
			.prepare(
				`SELECT min(timestamp), max(timestamp), (SELECT count(*) FROM messages ` +
					`WHERE session_id = @id) FROM messages WHERE session_id = @id ` +
					`AND ${WINDOW}`,
			)
			.raw(true),
		ids,
		before: store
			.prepare(
				`SELECT max(timestamp), count(*), ${nearestId(schema, '<=')} FROM ` +
					`messages WHERE session_id = @id AND ${WINDOW} AND timestamp <= @at`,
			)
			.raw(true),
		lastBefore: store
			.prepare(`SELECT max(timestamp) FROM messages WHERE session_id = ? AND ${WINDOW} AND timestamp < ?`)
			.pluck(),
		inside: store
			.prepare('SELECT count(*) FROM messages WHERE session_id = ? AND timestamp > ? AND timestamp < ?')
			.pluck(),
		after: store
			.prepare(
				`SELECT min(timestamp), max(timestamp), ` +
					`count(*), ${user}, ${nearestId(schema, '>=')} FROM messages WHERE ` +
					`session_id = @id AND ${WINDOW} AND timestamp >= @at`,
			)
			.raw(true),
	};
}

function num(v: unknown): number | null {
	return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : null;
}

/** One pair's probe, or null when the orphan has no in-window message. */
function probePair(s: Statements, orphanId: string, keyedId: string): RestartProbe | null {
	const [firstAt, lastAt, messages] = s.span.get({id: orphanId}) as unknown[];
	const first = num(firstAt);
	const last = num(lastAt);
	if (first === null || last === null) {
		return null;
	}

	const [firstId, lastId] = (s.ids?.get(orphanId) as unknown[] | undefined) ?? [null, null];
	const [beforeAt, beforeCount, beforeId] = s.before.get({id: keyedId, at: first}) as unknown[];
	const inside = s.inside.get(keyedId, first, last) as number;
	const [afterAt, afterLast, afterCount, userTurns, afterId] = s.after.get({id: keyedId, at: last}) as unknown[];
	const before = num(beforeAt);
	const after = num(afterAt);
	return {
		orphanId,
		keyedId,
		orphan: {
			firstAt: first,
			lastAt: last,
			messages: num(messages) ?? 0,
			firstPlatformId: num(firstId),
			lastPlatformId: num(lastId),
		},
		before: before === null ? null : {at: before, messages: num(beforeCount) ?? 0, platformId: num(beforeId)},
		lastBefore: num(s.lastBefore.get(keyedId, last)),
		inside,
		after:
			after === null
				? null
				: {
						at: after,
						lastAt: num(afterLast) ?? after,
						messages: num(afterCount) ?? 0,
						userTurns: num(userTurns) ?? 0,
						platformId: num(afterId),
					},
	};
}

/** What a pair's probe depends on: a change to either row's messages changes it. */
function stampOf(o: SessionRecord, k: SessionRecord): string {
	return `${o.newestMessageAt}|${o.messageRows ?? o.messageCountColumn}|${k.newestMessageAt}|${k.messageCountColumn}`;
}

/** Orders pairs as RollbackPairIndex.pairs() lists them: by orphan id, then keyed id. */
function byIds(a: RowPair, b: RowPair): number {
	if (a.orphan.id !== b.orphan.id) {
		return a.orphan.id < b.orphan.id ? -1 : 1;
	}

	return a.keyed.id < b.keyed.id ? -1 : a.keyed.id > b.keyed.id ? 1 : 0;
}

/**
 * Every pair's probe for a read that keeps nothing (`hfx scan`): the pairs found in two passes over the rows
 * (rollbackProbePairs, the set RollbackPairIndex keeps: pair-index.test.ts), in the index's order, each read once.
 * The index a live view updates commit by commit is not built for one read: on the 1M-message bench store (21,516
 * rows, no pair) this step took 128-150 ms of main-thread CPU with it, 53-68 ms without (3 fresh processes each,
 * machine at load ~12 on 2 cores).
 */
export function readRestartProbes(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	sessions: readonly SessionRecord[],
): RestartProbe[] {
	if (!schema.messageColumns.has('timestamp')) {
		return [];
	}

	const pairs = rollbackProbePairs(sessions, LOCAL_SURFACES).sort(byIds);
	let s: Statements | undefined;
	return pairs.flatMap(({orphan, keyed}) => {
		s ??= statements(store, schema);
		const probe = probePair(s, orphan.id, keyed.id);
		return probe ? [probe] : [];
	});
}

/** Keeps the pairs and probes of the last read; reads again only the pairs whose rows changed. */
export class RestartProbeReader {
	private cache = new Map<string, {stamp: string; probe: RestartProbe | null}>();
	private readonly pairs = new RollbackPairIndex(LOCAL_SURFACES);

	/** Every session's pairs found afresh. Call inside the read transaction the sessions came from. */
	read(store: ReadOnlyStore, schema: SchemaInfo, sessions: readonly SessionRecord[]): RestartProbe[] {
		return drain(this.readSteps(store, schema, sessions));
	}

	/** As `read`, in steps (the pairs found a chunk of rows at a time, then the probes): keys are answered between. */
	*readSteps(store: ReadOnlyStore, schema: SchemaInfo, sessions: readonly SessionRecord[]): Steps<RestartProbe[]> {
		yield* this.pairs.resetSteps(sessions);
		yield;
		return this.probe(store, schema);
	}

	/**
	 * After a `read`: only the changed rows are paired again (the same pairs as a `read` of every session), then the
	 * probes of the pairs whose rows changed are read. Call inside the read transaction the rows came from.
	 */
	readChanged(store: ReadOnlyStore, schema: SchemaInfo, changes: Iterable<RowChange>): RestartProbe[] {
		this.pairs.update(changes);
		return this.probe(store, schema);
	}

	private probe(store: ReadOnlyStore, schema: SchemaInfo): RestartProbe[] {
		if (!schema.messageColumns.has('timestamp')) {
			return [];
		}

		const next = new Map<string, {stamp: string; probe: RestartProbe | null}>();
		let s: Statements | undefined;
		for (const {orphan, keyed} of this.pairs.pairs()) {
			const key = `${orphan.id}\u0000${keyed.id}`;
			const stamp = stampOf(orphan, keyed);
			const earlier = this.cache.get(key);
			if (earlier?.stamp === stamp) {
				next.set(key, earlier);
				continue;
			}

			s ??= statements(store, schema);
			next.set(key, {stamp, probe: probePair(s, orphan.id, keyed.id)});
		}

		this.cache = next;
		return [...next.values()].flatMap(e => (e.probe ? [e.probe] : []));
	}
}
