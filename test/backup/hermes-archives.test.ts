/**
 * What real Hermes writes (test/fixtures/hermes-generations/: `hermes backup` and `hermes backup
 * --quick` of the v25 tree, see its README) verifies with hfx: every database checked, the counts
 * those of the stores it was made from, the fixtures' bytes unchanged.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {hfxJson} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/hermes-generations');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-hermes-archives-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

/** Sessions and messages of a fixture store, read from a private copy (the fixture is never opened). */
function counts(rel: string): {sessions: number; messages: number} {
	const copy = path.join(dir, rel.replaceAll('/', '_'));
	fs.copyFileSync(path.join(FIXTURE, 'root', rel), copy);
	const db = new Database(copy, {readonly: true});
	try {
		const n = (t: string) => (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as {n: number}).n;
		return {sessions: n('sessions'), messages: n('messages')};
	} finally {
		db.close();
	}
}

type Report = {exitCode: number; status: string; databases: Array<{path: string; ok: boolean; counts: Record<string, number>}>};

describe('archives made by Hermes itself', () => {
	it('a `hermes backup` zip and a `hermes backup --quick` snapshot verify sound, with the counts of their stores', () => {
		fs.cpSync(path.join(FIXTURE, 'hermes-backup.zip'), path.join(dir, 'hermes-backup.zip'));
		fs.cpSync(path.join(FIXTURE, 'hermes-quick-snapshot'), path.join(dir, 'snap'), {recursive: true});
		const zip = hfxJson<Report>(['verify', path.join(dir, 'hermes-backup.zip')]).json;
		expect(zip).toMatchObject({exitCode: 0, status: 'sound'});
		const byPath = Object.fromEntries(zip.databases.map(d => [d.path, d]));
		for (const rel of ['state.db', 'profiles/ops/state.db', 'profiles/work/state.db']) {
			expect(byPath[rel]?.ok).toBe(true);
			expect(byPath[rel]?.counts).toMatchObject(counts(rel));
		}

		const snap = hfxJson<Report>(['verify', path.join(dir, 'snap')]).json;
		expect(snap).toMatchObject({exitCode: 0, status: 'sound'});
		expect(snap.databases).toHaveLength(1);
		expect(snap.databases[0]!.counts).toMatchObject(counts('state.db'));
	});
});
