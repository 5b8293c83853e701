/**
 * What `hfx verify` prints (report/backups/verify.ts): the verdict line with the artifact's kind, seal,
 * members and size; the manifest's moment; each database's integrity and counts; the problems (50
 * at most); what was checked when sound; the next safe step when not; and the --json document.
 */
import {describe, expect, it} from 'vitest';
import type {Manifest} from '../../../source/backup/manifest.js';
import type {DbReport, VerifyReport} from '../../../source/backup/verify/report.js';
import {humanVerify, nextStep, verifyJson} from '../../../source/report/backups/verify.js';

const MANIFEST = {
	createdAt: '2026-12-01T10:00:00Z',
	source: {root: '/home/u/.hermes', host: 'box', uid: 1000},
	complete: true,
} as Manifest;

function db(partial: Partial<DbReport> = {}): DbReport {
	return {
		path: 'state.db',
		ok: true,
		integrity: ['ok'],
		counts: {sessions: 3, messages: 1},
		schemaVersion: 30,
		expected: null,
		problems: [],
		walBytes: null,
		checkMs: 5,
		inventory: null,
		...partial,
	};
}

function report(partial: Partial<VerifyReport> = {}): VerifyReport {
	return {
		path: '/b/a.zip',
		kind: 'zip',
		status: 'sound',
		exitCode: 0,
		manifest: MANIFEST,
		sealed: true,
		seal: 'abc',
		members: 2,
		bytes: 2048,
		problems: [],
		databases: [db()],
		notes: [],
		ms: 12.6,
		...partial,
	};
}

describe('humanVerify', () => {
	it('says a sound sealed archive, when and where it was taken, its database, and that every byte was checked', () => {
		expect(humanVerify(report({databases: [db({expected: {counts: {}, schemaVersion: 30}})]}))).toEqual([
			'✓ SOUND  /b/a.zip  (zip archive, sealed, 2 members, 2.0 KiB)',
			'  taken 2026-12-01T10:00:00Z from /home/u/.hermes on box',
			'  ✓ state.db: integrity_check ok, 3 sessions, 1 message, counts match the manifest, schema v30',
			'  every byte checked: seal, structure, CRC-32 and sha256 of every member, databases on a temp extraction',
		]);
	});

	it('says a Hermes zip has no seal and what was checked without one; a store without sessions counts tables', () => {
		const lines = humanVerify(
			report({sealed: false, manifest: null, members: 1, databases: [db({counts: {a: 1, b: 2}, schemaVersion: null})]}),
		);
		expect(lines).toEqual([
			'✓ SOUND  /b/a.zip  (zip archive, no hfx seal, 1 member, 2.0 KiB)',
			'  ✓ state.db: integrity_check ok, 2 tables',
			'  every byte checked: structure and CRC-32 of every member, databases on a temp extraction',
		]);
	});

	it('says a damaged archive, an incomplete manifest, the failing checks and the next step', () => {
		const lines = humanVerify(
			report({
				status: 'damaged',
				exitCode: 1,
				manifest: {...MANIFEST, complete: false},
				databases: [
					db({
						ok: false,
						integrity: ['row 3 missing', 'page 9 never used', 'third'],
						expected: {counts: {sessions: 4}, schemaVersion: 30},
						problems: ['sessions: 3, the manifest says 4'],
					}),
				],
				problems: [{where: 'state.db', what: 'CRC-32 mismatch'}],
				notes: ['a note'],
			}),
		);
		expect(lines).toEqual([
			'✗ DAMAGED  /b/a.zip  (zip archive, sealed, 2 members, 2.0 KiB)',
			'  taken 2026-12-01T10:00:00Z from /home/u/.hermes on box (INCOMPLETE when taken)',
			'  ✗ state.db: integrity_check row 3 missing; page 9 never used, 3 sessions, 1 message, schema v30',
			'      sessions: 3, the manifest says 4',
			'  ✗ state.db: CRC-32 mismatch',
			'  note: a note',
			'Next: do not restore from this; pick another backup (hfx backups)',
		]);
	});

	it('lists 50 problems and says how many more; says an unreadable file and a snapshot folder', () => {
		const problems = Array.from({length: 53}, (_, i) => ({where: `m${i}`, what: 'bad'}));
		const lines = humanVerify(report({status: 'damaged', problems}));
		expect(lines.filter(l => l.startsWith('  ✗ m'))).toHaveLength(50);
		expect(lines).toContain('  … 3 more (--json lists all)');
		const fiftyOne = humanVerify(report({status: 'damaged', problems: problems.slice(0, 51)}));
		expect(fiftyOne).toContain('  … 1 more (--json lists all)');
		expect(humanVerify(report({status: 'damaged', problems: problems.slice(0, 50)})).join('\n')).not.toContain('more');
		expect(humanVerify(report({status: 'unreadable', kind: 'unknown', databases: []}))[0]).toBe(
			'✗ UNREADABLE  /b/a.zip  (file, 2 members, 2.0 KiB)',
		);
		expect(humanVerify(report({kind: 'snapshot', databases: []}))[0]).toBe(
			'✓ SOUND  /b/a.zip  (snapshot folder, 2 members, 2.0 KiB)',
		);
	});
});

describe('nextStep', () => {
	it('says an archive with no Hermes store is not a backup of a home', () => {
		const r = report({status: 'damaged', problems: [{where: '/', what: 'no state.db', noStore: true}]});
		expect(humanVerify(r)[0]).toMatch(/^✗ NO HERMES STORE {2}/);
		expect(nextStep(r)).toMatch(/^this is not a backup of a Hermes home: do not restore from it/);
	});

	it('says a tar whose only findings are its sidecars restores, folding its -wal', () => {
		const sidecars = [{where: 'state.db-wal', what: 'a sidecar', sidecar: true}];
		expect(nextStep(report({kind: 'tar', status: 'damaged', problems: sidecars}))).toBe(
			"hfx restore folds the -wal's commits into its database and never writes a sidecar: see it with " +
				'hfx restore /b/a.zip --home DIR --dry-run',
		);
		expect(nextStep(report({kind: 'zip', status: 'damaged', problems: sidecars}))).toBe(
			'do not restore from this; pick another backup (hfx backups)',
		);
		expect(nextStep(report({kind: 'tar', status: 'damaged', problems: sidecars, databases: [db({ok: false})]}))).toBe(
			'do not restore from this; pick another backup (hfx backups)',
		);
	});
});

describe('verifyJson', () => {
	it("carries the verdict, the manifest's moment, the databases without their inventory, and the time rounded", () => {
		const doc = verifyJson(report({databases: [db({inventory: null})]}), true);
		expect(doc).toMatchObject({
			path: '/b/a.zip',
			kind: 'zip',
			status: 'sound',
			exitCode: 0,
			sealed: true,
			members: 2,
			bytes: 2048,
			createdAt: '2026-12-01T10:00:00Z',
			complete: true,
			live: [],
			recorded: true,
			ms: 13,
		});
		expect(doc.databases).toHaveLength(1);
		expect(Object.keys(doc.databases[0]!)).not.toContain('inventory');
		expect(verifyJson(report({manifest: null}), false)).toMatchObject({
			createdAt: null,
			complete: null,
			recorded: false,
		});
	});
});
