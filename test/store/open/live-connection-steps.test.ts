/**
 * LiveConnection.readAsync (issue #26): a read in steps (read-snapshot.ts readSnapshotSteps) with turns of the event
 * loop between them, on a store held open by a writer process. The connection and the read transaction stay open
 * across the turns: a session the writer commits between two steps is not in the snapshot (one snapshot), and the
 * next read sees it. Reads asked meanwhile run inside it; a close meanwhile drops the read (null).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {LiveConnection} from '../../../source/store/open/live-connection.js';
import {readSnapshotSteps} from '../../../source/store/read/read-snapshot.js';
import {routingHomeOf} from '../../../source/store/read/routing-home.js';
import {WriterProcess} from '../../helpers/writer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-live-steps-'));
const writers: WriterProcess[] = [];
afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

let n = 0;
async function held(): Promise<{db: string; writer: WriterProcess}> {
	const db = path.join(dir, `s${n++}.db`);
	const writer = new WriterProcess(db);
	writers.push(writer);
	await writer.started();
	await writer.create({source: 'cli', userId: 'u1', startedAt: 1_700_000_000});
	return {db, writer};
}

describe('LiveConnection.readAsync', () => {
	it('keeps one snapshot across its steps while the owner commits between them', async () => {
		const {db, writer} = await held();
		const connection = new LiveConnection(db);
		let committed = false;
		let turnsWaited = 0;
		let countInside: unknown;
		const reading = connection.readAsync(function* ({store, schema}) {
			const context = routingHomeOf({path: db, owner: 'default'}, schema).context;
			const steps = readSnapshotSteps(store, schema, context);
			steps.next();
			// Between two steps of the read, its transaction open: the writer commits a session meanwhile.
			while (!committed) {
				turnsWaited++;
				yield;
			}

			countInside = store.prepare('SELECT count(*) FROM sessions').pluck().get();
			for (;;) {
				const step = steps.next();
				if (step.done) {
					return step.value;
				}

				yield;
			}
		});
		await writer.create({source: 'cli', userId: 'u2', startedAt: 1_700_000_100});
		committed = true;
		const read = await reading;
		// The event loop ran meanwhile (the writer's reply was read between steps).
		expect(turnsWaited).toBeGreaterThan(0);
		expect(read?.snapshot.sessions).toHaveLength(1);
		expect(countInside).toBe(1);
		expect(read?.meta.consistentSnapshot).toBe(true);
		expect(connection.read(({store}) => store.prepare('SELECT count(*) FROM sessions').pluck().get())).toBe(2);
		connection.close();
	});

	it('runs a read asked between its steps on its connection, and drops the read when closed meanwhile', async () => {
		const {db} = await held();
		const connection = new LiveConnection(db);
		const reading = connection.readAsync(function* ({store}) {
			store.connection.exec('BEGIN');
			yield;
			yield;
			return 'finished';
		});
		await new Promise(resolve => setImmediate(resolve));
		const inside = connection.read(({store}) => store.connection.inTransaction);
		expect(inside).toBe(true);
		connection.close();
		expect(await reading).toBeNull();
	});
});
