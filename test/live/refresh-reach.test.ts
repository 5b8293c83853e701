/**
 * What one refresh of the live store does to reach the store's files, beside its agent (a writer process): one look
 * before the read serves both the commit signature and the preflight, one look after it, the store's path resolved
 * once by the system's realpath, the facts' sizes and -wal header taken from that look. Counted per file by the fs
 * calls made (SQLite's own opens are not fs calls): each was made again before (issue #26, the fixed cost of a
 * refresh following 200 commits/s).
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it, vi} from 'vitest';
import {LiveStore} from '../../source/live/live.js';
import {T0} from '../fixtures/scenarios.js';
import {WriterProcess} from '../helpers/writer.js';
import {scratch} from '../helpers/scratch.js';

const {dir, cleanups} = scratch('hfx-refresh-reach-');

let n = 0;

/** A live store beside its writer, one chat in it, and a commit waiting to be read. */
async function committed(): Promise<{db: string; live: LiveStore}> {
	const db = path.join(dir, `s${n++}.db`);
	const w = new WriterProcess(db);
	await w.started();
	cleanups.push(() => w.kill());
	const chat = await w.create({
		source: 'telegram',
		userId: 'u1',
		sessionKey: 'agent:main:telegram:dm:1',
		startedAt: T0,
	});
	await w.send({op: 'conversation', id: chat, count: 5, from: T0 + 1, to: T0 + 50});
	const live = LiveStore.open({path: db, owner: 'default', label: 'reach'}, {watch: false});
	cleanups.push(() => live.close());
	await w.send({op: 'conversation', id: chat, count: 2, from: T0 + 60, to: T0 + 70});
	return {db, live};
}

type Calls = Record<'open' | 'lstat' | 'realpath' | 'realpathNative', string[]>;

/** The paths each fs call was made on while `fn` ran. */
function callsDuring(fn: () => void): Calls {
	const calls: Calls = {open: [], lstat: [], realpath: [], realpathNative: []};
	const spies = [
		vi.spyOn(fs, 'openSync').mockName('open'),
		vi.spyOn(fs, 'lstatSync').mockName('lstat'),
		vi.spyOn(fs, 'realpathSync').mockName('realpath'),
		vi.spyOn(fs.realpathSync, 'native').mockName('realpathNative'),
	];
	try {
		fn();
		for (const spy of spies) {
			calls[spy.getMockName() as keyof Calls] = spy.mock.calls.map(([p]) => String(p));
		}
	} finally {
		for (const spy of spies) {
			spy.mockRestore();
		}
	}

	return calls;
}

const on = (paths: string[], file: string) => paths.filter(p => p === file).length;

describe('one refresh reaching the store', () => {
	it('opens state.db, its -wal and -shm once before the read (signature and preflight) and once after', async () => {
		const {db, live} = await committed();
		let published = false;
		const calls = callsDuring(() => {
			published = live.refresh();
		});
		expect(published).toBe(true);
		// The header and the wal-index header: before, the preflight read the header again, and the facts the -wal's.
		expect(on(calls.open, db)).toBe(2);
		expect(on(calls.open, `${db}-shm`)).toBe(2);
		expect(on(calls.open, `${db}-wal`)).toBe(2);
	});

	it('lstats each file once per look, the facts taking the sizes the read was opened with', async () => {
		const {db, live} = await committed();
		const calls = callsDuring(() => live.refresh());
		// Before: the preflight and the facts (withSizesNow) each lstat'ed every file again, and the path's resolution
		// state.db once more.
		for (const file of [db, `${db}-wal`, `${db}-shm`, `${db}-journal`]) {
			expect(on(calls.lstat, file)).toBe(2);
		}

		const {sizes} = live.model.facts;
		expect(sizes.wal).toBe(fs.statSync(`${db}-wal`).size);
		expect(sizes.db).toBe(fs.statSync(db).size);
		expect(sizes.journal).toBeNull();
	});

	it("resolves the store's path once, by the system's realpath, not Node's walk of each component", async () => {
		const {db, live} = await committed();
		const calls = callsDuring(() => live.refresh());
		// Before: three times (the signature, the preflight, the signature after the read), each by Node's own walk.
		expect(calls.realpath).toEqual([]);
		expect(calls.realpathNative).toEqual([db]);
	});
});
