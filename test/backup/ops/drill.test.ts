/**
 * `hfx restore --drill` (source/backup/ops/drill.ts) in-process on real archives of a real Hermes
 * home: a sound archive is restored into a scratch folder that is removed again, every restored
 * store scanned (its sessions as the manifest recorded, its newest ids), and a passing drill record
 * written beside it with the seal, the home and the stores' identity; a damaged archive fails
 * (exit 1) with the problem recorded; what is no archive is refused in words; recordsLocation says
 * where an artifact's records go.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {createBackup} from '../../../source/backup/create/backup.js';
import {drillArchive, recordsLocation} from '../../../source/backup/ops/drill.js';
import {readRecords} from '../../../source/backup/records.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {cleanupTemps, makeHome, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

async function archiveOfHome(tag: string): Promise<{root: string; archive: string; sessions: number}> {
	const home = makeHome(tag);
	const r = await createBackup({root: home.root, output: tempDir(`${tag}-out`)});
	return {root: home.root, archive: r.archive!, sessions: home.sessions};
}

function scratchFolders(tmp: string): string[] {
	return fs.readdirSync(tmp);
}

describe('recordsLocation', () => {
	it('the records beside an archive, or beside a snapshot folder', () => {
		const dir = tempDir('drill-where');
		const snap = path.join(dir, 'state-snapshots', '20260101-000000');
		fs.mkdirSync(snap, {recursive: true});
		fs.writeFileSync(path.join(snap, 'manifest.json'), '{}');
		expect(recordsLocation(path.join(dir, 'a.zip'))).toEqual({dir, name: 'a.zip', kind: 'archive'});
		expect(recordsLocation(snap)).toMatchObject({dir: path.dirname(snap), name: '20260101-000000'});
	});
});

describe('drillArchive', () => {
	it('a sound archive: restored, scanned, recorded as drilled, the scratch folder gone', async () => {
		const {root, archive, sessions} = await archiveOfHome('drill-ok');
		const tmp = tempDir('drill-ok-tmp');
		const r = await drillArchive({archive, tmpDir: tmp});
		expect(r).toMatchObject({exitCode: 0, ok: true, problems: [], recorded: true});
		const main = r.scans.find(s => s.path === 'state.db')!;
		expect(main).toMatchObject({ok: true, sessions, expectedSessions: sessions, error: null});
		expect(main.newestSessions.length).toBeGreaterThan(0);
		expect(r.scans.map(s => s.path).sort()).toEqual(['profiles/work/state.db', 'state.db']);
		expect(scratchFolders(tmp)).toEqual([]);
		const rec = readRecords(path.dirname(archive)).filter(x => x.event === 'drill');
		expect(rec).toHaveLength(1);
		expect(rec[0]).toMatchObject({artifact: path.basename(archive), ok: true, exitCode: 0, level: 'full'});
		expect(rec[0]!.seal).toMatch(/^[0-9a-f]{64}$/);
		expect(rec[0]!.details).toMatchObject({complete: true, home: fs.realpathSync(root)});
		expect(rec[0]!.details!.identity).toContainEqual({path: 'state.db', newest: main.newestSessions});
		expect(rec[0]!.details!.sha256).toBeUndefined();
	});

	it('a damaged archive: the drill fails (exit 1), the failure recorded', async () => {
		const {archive} = await archiveOfHome('drill-bad');
		const fd = fs.openSync(archive, 'r+');
		fs.writeSync(fd, Buffer.from('XXXX'), 0, 4, Math.floor(fs.statSync(archive).size / 2));
		fs.closeSync(fd);
		const tmp = tempDir('drill-bad-tmp');
		const r = await drillArchive({archive, tmpDir: tmp});
		expect(r).toMatchObject({exitCode: 1, ok: false, recorded: true});
		expect(r.problems.length).toBeGreaterThan(0);
		expect(scratchFolders(tmp)).toEqual([]);
		const rec = readRecords(path.dirname(archive)).at(-1)!;
		expect(rec).toMatchObject({event: 'drill', ok: false, exitCode: 1});
		expect(rec.summary).toBe(`FAILED: ${r.problems.join('; ')}`);
	});

	it('what is no archive, or nothing, is refused in words', async () => {
		const dir = tempDir('drill-none');
		const text = path.join(dir, 'notes.txt');
		fs.writeFileSync(text, 'x');
		for (const [archive, reason] of [
			[text, 'a drill restores zip and tar archives and snapshot folders only'],
			[path.join(dir, 'gone.zip'), 'no such file or folder'],
		] as const) {
			const refused = await drillArchive({archive, tmpDir: os.tmpdir()}).catch((error: unknown) => error);
			expect(refused).toBeInstanceOf(FailClosed);
			expect(refused).toMatchObject({kind: 'unsupported', reason, next: 'list the backups with hfx backups'});
		}

		expect(fs.readdirSync(dir)).toEqual(['notes.txt']);
	});
});
