/**
 * store/open/live-signature.ts lookAtStore: one look at a store's files with nothing open, which the commit signature
 * and a preflight are both made of (preflight.ts `preflight(path, look)`): the preflight made from it is the one it
 * would have taken itself, without looking again.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it, vi} from 'vitest';
import {FailClosed} from '../../../source/ground/errors.js';
import {lookAtStore, storeSignature} from '../../../source/store/open/live-signature.js';
import {preflight} from '../../../source/store/open/preflight.js';
import {WriterProcess} from '../../helpers/writer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-live-signature-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

describe('one look at the store', () => {
	it('makes the preflight a fresh one would be, with no lstat or open of the store again', async () => {
		const db = path.join(dir, 'live.db');
		const w = new WriterProcess(db);
		try {
			await w.started();
			await w.create({source: 'cli', userId: 'u', startedAt: 1_700_000_000});
			const look = lookAtStore(db);
			expect(look?.signature).toBe(storeSignature(db));
			const lstat = vi.spyOn(fs, 'lstatSync');
			const open = vi.spyOn(fs, 'openSync');
			let fromLook: ReturnType<typeof preflight>;
			try {
				fromLook = preflight(db, look);
				const ofStore = (calls: unknown[][]) => calls.map(([p]) => String(p)).filter(p => p.startsWith(db));
				expect(ofStore(lstat.mock.calls)).toEqual([]);
				expect(ofStore(open.mock.calls)).toEqual([]);
			} finally {
				lstat.mockRestore();
				open.mockRestore();
			}

			// The same facts, to the modification time Node's own Stats gives; the -wal's header kept for the facts.
			const {walHeader, ...rest} = fromLook;
			expect(rest).toEqual(preflight(db));
			expect(walHeader).toEqual(fs.readFileSync(`${db}-wal`).subarray(0, 32));
			expect(rest.main.mtimeMs).toBe(fs.lstatSync(db).mtimeMs);
		} finally {
			await w.kill();
		}
	});

	it('leaves a file it cannot serve to the preflight, which refuses it in its own words', () => {
		const fixture = path.join(import.meta.dirname, '../../fixtures/hermes-v21-incident/state.db');
		const db = path.join(dir, 'odd.db');
		fs.copyFileSync(fixture, db);
		execFileSync('sqlite3', [db, 'PRAGMA journal_mode=WAL;']);
		fs.mkdirSync(`${db}-journal`);
		const look = lookAtStore(db);
		expect(look?.journal.st?.isDirectory()).toBe(true);
		const refusal = (() => {
			try {
				preflight(db, look);
			} catch (error) {
				return error;
			}
		})();
		expect(refusal).toBeInstanceOf(FailClosed);
		expect((refusal as FailClosed).kind).toBe('sidecar-not-a-file');
	});
});
