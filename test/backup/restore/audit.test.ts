/**
 * The audit trail survives a restore (issue 15, point 4), on the real binary: a repair applied
 * after a backup was taken stays in the trail when that backup is restored, the restore is the
 * trail's newest entry, and `hfx audit verify` finds the chain intact.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {assertTrailsWritable, keepLiveTrails, recordRestore, trailsOf} from '../../../source/backup/restore/audit.js';
import type {PlannedMember} from '../../../source/backup/restore/types.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {readAudit, verifyAudit} from '../../../source/store/audit-trail.js';
import {hfx, hfxJson} from '../../helpers/cli.js';
import {cleanupTemps, makeHome, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

describe('a restore and the audit trail', () => {
	it('keeps the live trail (the repair applied after the backup included) and records the restore in it', () => {
		const home = makeHome('audit');
		const trail = path.join(home.root, 'hfx-audit.jsonl');
		// A repair applied and undone before the backup: the archive holds that trail (4 entries).
		const first = hfx(['repair', '--apply', '--yes', '--db', home.db]);
		expect(first.code, first.stderr).toBe(0);
		const applyEntry = readAudit(trail).find(e => e.mode === 'apply' && e.result === 'applied')!;
		expect(hfx(['repair', '--undo', String(applyEntry.seq), '--yes', '--db', home.db]).code).toBe(0);
		const archived = readAudit(trail).length;

		const out = tempDir('audit-out');
		const backup = hfxJson(['backup', '--home', home.root, '-o', out]);
		expect(backup.code).toBe(0);
		const archive = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);

		// The repair applied again after the backup: only the live trail has it.
		const applied = hfx(['repair', '--apply', '--yes', '--db', home.db]);
		expect(applied.code, applied.stderr).toBe(0);
		const beforeRestore = readAudit(trail);
		expect(beforeRestore.slice(archived).some(e => e.mode === 'apply' && e.result === 'applied')).toBe(true);
		const head = fs.readFileSync(path.join(home.root, 'hfx-audit.head'), 'utf8');

		const restore = hfxJson(['restore', archive, '--home', home.root, '--yes']);
		expect(restore.code, restore.stderr).toBe(0);
		// The archive held the older trail: it was not written over the live one.
		expect(restore.json.restored).not.toContain('hfx-audit.jsonl');
		expect(restore.json.audit).toContainEqual(
			expect.objectContaining({trail, keptLive: true, seq: beforeRestore.length + 1, problem: null}),
		);

		const after = readAudit(trail);
		expect(after.slice(0, -1)).toEqual(beforeRestore);
		expect(after.at(-1)).toMatchObject({
			mode: 'restore',
			archive,
			result: 'restored',
			keptLiveTrail: true,
			database: home.db,
		});
		expect(fs.readFileSync(path.join(home.root, 'hfx-audit.head'), 'utf8')).not.toBe(head);

		const verify = hfx(['audit', 'verify', trail]);
		expect(verify.code, verify.stderr).toBe(0);
		expect(verify.stdout).toContain(`${after.length} entries, hash chain intact`);
		expect(hfx(['restore', archive, '--home', home.root, '--yes']).stdout).toMatch(
			/audit trail .*hfx-audit\.jsonl: the live trail kept .*this restore is entry \d+/,
		);
	});

	it("restores the archive's trail into a folder that has none, and records the restore after it", () => {
		const home = makeHome('audit-to');
		expect(hfx(['repair', '--apply', '--yes', '--db', home.db]).code).toBe(0);
		const archived = readAudit(path.join(home.root, 'hfx-audit.jsonl'));
		const out = tempDir('audit-to-out');
		expect(hfxJson(['backup', '--home', home.root, '-o', out]).code).toBe(0);
		const archive = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);
		const target = path.join(tempDir('audit-to-target'), 'fresh');
		const restore = hfxJson(['restore', archive, '--to', target]);
		expect(restore.code, restore.stderr).toBe(0);
		expect(restore.json.restored).toContain('hfx-audit.jsonl');
		const restored = readAudit(path.join(target, 'hfx-audit.jsonl'));
		expect(restored.slice(0, -1)).toEqual(archived);
		expect(restored.at(-1)).toMatchObject({mode: 'restore', keptLiveTrail: false, seq: archived.length + 1});
		expect(hfx(['audit', 'verify', path.join(target, 'hfx-audit.jsonl')]).code).toBe(0);
	});

	it('refuses before any write when the trail cannot take the entry', () => {
		const home = makeHome('audit-ro');
		const out = tempDir('audit-ro-out');
		expect(hfxJson(['backup', '--home', home.root, '-o', out]).code).toBe(0);
		const archive = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);
		const trail = path.join(home.root, 'hfx-audit.jsonl');
		fs.symlinkSync('/etc/passwd', trail);
		const before = fs.readFileSync(home.db);
		const restore = hfx(['restore', archive, '--home', home.root, '--yes']);
		expect(restore.code).toBe(2);
		expect(restore.stderr).toMatch(/hfx-audit\.jsonl.*symbolic link.*nothing was written/);
		expect(fs.readFileSync(home.db).equals(before)).toBe(true);
		const backups = path.join(home.root, 'backups');
		expect(fs.existsSync(backups) ? fs.readdirSync(backups).filter(n => n.startsWith('pre-restore-')) : []).toEqual([]);
	});
});

describe('audit.ts, in process: a restore keeps the live trail and records itself in it', () => {
	const member = (dest: string, kind: 'file' | 'db' = 'file'): PlannedMember => ({
		m: {
			path: path.basename(dest),
			archivePath: path.basename(dest),
			size: 1,
			mode: 0o600,
			sha256: null,
			crc32: null,
			kind,
		},
		dest,
		exists: fs.existsSync(dest),
	});

	it("leaves the archive's trail files out where a live trail stands, and only there", () => {
		const withTrail = tempDir('trail-live');
		const without = tempDir('trail-none');
		fs.writeFileSync(path.join(withTrail, 'hfx-audit.head'), 'x');
		const plan = [
			member(path.join(withTrail, 'state.db'), 'db'),
			member(path.join(withTrail, 'hfx-audit.jsonl')),
			member(path.join(withTrail, 'hfx-audit.head')),
			member(path.join(without, 'hfx-audit.jsonl')),
		];
		const kept = keepLiveTrails(plan);
		expect(kept.plan.map(p => p.dest)).toEqual([plan[0]!.dest, plan[3]!.dest]);
		expect(kept.kept).toEqual([path.join(withTrail, 'hfx-audit.jsonl')]);
	});

	it('names one trail beside every state.db the restore writes, and none beside other files', () => {
		const plan = [
			member('/h/state.db', 'db'),
			member('/h/state.db', 'db'),
			member('/h/profiles/work/state.db', 'db'),
			member('/h/profiles/work/other.db', 'db'),
			member('/h/config.yaml'),
		];
		expect(trailsOf(plan)).toEqual(['/h/hfx-audit.jsonl', '/h/profiles/work/hfx-audit.jsonl']);
	});

	it('refuses before any write a trail that is a planted link; a folder not there yet is no refusal', () => {
		const dir = tempDir('trail-link');
		fs.symlinkSync('/etc/passwd', path.join(dir, 'hfx-audit.jsonl'));
		let refusal: unknown;
		try {
			assertTrailsWritable([path.join(dir, 'hfx-audit.jsonl')]);
		} catch (error) {
			refusal = error;
		}
		expect(refusal).toBeInstanceOf(FailClosed);
		expect(() => assertTrailsWritable([path.join(dir, 'not-yet', 'hfx-audit.jsonl')])).not.toThrow();
	});

	it('into a home every trail gets the entry, made if need be; elsewhere only a trail already there', () => {
		const home = tempDir('trail-home');
		const trail = path.join(home, 'hfx-audit.jsonl');
		const record = {
			archive: '/b/x.tar.gz',
			argv: ['restore'],
			status: 'restored' as const,
			exitCode: 0,
			restored: 3,
			failed: 0,
		};
		const into = (mode: 'to' | 'home') => recordRestore([trail], [], {...record, preRestoreDir: null, mode} as const);
		expect(into('to')).toEqual([]);
		expect(fs.existsSync(trail)).toBe(false);
		const [written] = into('home');
		expect(written).toEqual({trail, keptLive: false, seq: 1, problem: null});
		expect(readAudit(trail).at(-1)).toMatchObject({
			mode: 'restore',
			database: path.join(home, 'state.db'),
			archive: '/b/x.tar.gz',
			restoredFiles: 3,
			result: 'restored',
		});
		expect(into('to')[0]!.seq).toBe(2);
		expect(verifyAudit(trail).ok).toBe(true);
	});
});
