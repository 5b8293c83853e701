/**
 * The preview a live view is first drawn from (issue #26): the store's newest session rows (by rowid) and how many rows
 * it holds, in one short read transaction, without the routing, the probes or the analysis. On the 1M-message bench
 * store the full read takes ~0.6 s and its analysis ~0.5 s before a frame could show; the newest few hundred rows take
 * a few ms. What the preview shows is said as such ("analysing…"): no verdict is drawn from it.
 */
import type {SessionRecord, Snapshot} from '../../forensics/types.js';
import {needsMessageCount} from '../../forensics/routing/orphans.js';
import type {ReadOnlyStore} from '../open/open.js';
import type {SchemaInfo} from '../open/schema.js';
import {
	type SnapshotContext,
	type SnapshotMeta,
	keylessMessageRows,
	messageRowsSettler,
	rowMapper,
	sessionsSql,
} from './read-snapshot.js';

/**
 * `highWater`: the highest sessions rowid and messages rowid the preview saw; what the first full read finds above
 * them, and what it finds changed in the previewed rows, happened while the view was drawn from the preview.
 */
export type Preview = {
	snapshot: Snapshot;
	meta: SnapshotMeta;
	total: number;
	highWater: {sessions: number; messages: number};
};

/** The newest `limit` session rows (in rowid order, as a full read lists them) and the count of every row. */
export function readPreview(
	store: ReadOnlyStore,
	schema: SchemaInfo,
	context: SnapshotContext,
	limit: number,
): Preview {
	const started = performance.now();
	return store.read(() => {
		const total = Number(store.prepare('SELECT count(*) FROM sessions').pluck().get() ?? 0);
		const top = (table: string) => Number(store.prepare(`SELECT max(rowid) FROM ${table}`).pluck().get() ?? 0);
		const highWater = {sessions: top('sessions'), messages: top('messages')};
		const rows = store
			.prepare(`${sessionsSql(schema)}\nORDER BY s.rowid DESC LIMIT ?`)
			.raw(true)
			.all(limit) as unknown[][];
		const map = rowMapper('full');
		const sessions: SessionRecord[] = rows.map(map).reverse();
		settle(store, schema, sessions);
		return {
			total,
			highWater,
			snapshot: {
				sessions,
				routing: [],
				restartProbes: [],
				owner: context.owner,
				routingScope: context.routingScope,
				legacyRouting: context.legacyRouting,
				ruleSet: schema.ruleSet,
				missingColumns: schema.missingColumns,
			},
			meta: {
				dataVersion: store.dataVersion(),
				messageHighWater: null,
				sessionHighWater: null,
				readMs: performance.now() - started,
				consistentSnapshot: true,
				transactions: 1,
			},
		};
	});
}

/** Each row's message facts settled as a full read settles them (a keyless row's messages counted). */
function settle(store: ReadOnlyStore, schema: SchemaInfo, sessions: SessionRecord[]): void {
	const settleRow = messageRowsSettler(store);
	const keyless = sessions.filter(r => r.sessionKey === null && r.source !== 'tool').map(r => r.id);
	let counts: Map<string, number> | undefined;
	for (const s of sessions) {
		settleRow(s);
		if (needsMessageCount(s)) {
			counts ??= keylessMessageRows(store, schema, keyless);
			s.messageRows = counts.get(s.id) ?? 0;
		}
	}
}
