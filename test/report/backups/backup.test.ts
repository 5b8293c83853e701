/**
 * What `hfx backup` prints (report/backups/backup.ts): a dry run's plan, an archive's members, size,
 * verification and databases, links followed, exclusions (8 named at most), skips, problems,
 * retention, the next step and the credentials warning; a quick snapshot's lines; their --json.
 */
import {describe, expect, it} from 'vitest';
import type {BackupResult} from '../../../source/backup/create/backup.js';
import type {QuickSnapshotResult} from '../../../source/backup/create/snapshot.js';
import type {DatabaseRecord, Manifest} from '../../../source/backup/manifest.js';
import {
	CREDENTIALS_WARNING,
	backupJson,
	humanBackup,
	quickJson,
	quickLines,
} from '../../../source/report/backups/backup.js';

const DB: DatabaseRecord = {
	path: 'state.db',
	schemaVersion: 30,
	integrity: 'ok',
	counts: {sessions: 2, messages: 1},
	pageSize: 4096,
	pageCount: 3,
	journalMode: 'wal',
	sourceWalBytes: 0,
	openMode: 'in-place',
	steps: 1,
	restarts: 0,
	copyMs: 1,
	pinnedMs: 4,
	checkMs: 1,
	readerSqliteVersion: '3.50.0',
};

const MANIFEST: Manifest = {
	format: 'hfx-backup',
	version: 1,
	kind: 'full',
	id: 'id-1',
	createdAt: '2026-12-01T10:00:00.000Z',
	createdAtEpoch: 1_796_119_200,
	label: null,
	source: {root: '/h', host: 'box', uid: 1000},
	tool: {name: 'hfx', version: '0.0.0'},
	complete: true,
	members: [
		{path: 'state.db', size: 12_288, mode: 0o600, mtime: 't', crc32: '00000000', sha256: 'a', kind: 'db'},
		{path: 'config.yaml', size: 10, mode: 0o600, mtime: 't', crc32: '00000000', sha256: 'b', kind: 'file'},
	],
	databases: [DB],
	skipped: [],
	excluded: [],
};

function result(partial: Partial<BackupResult> = {}): BackupResult {
	return {
		root: '/h',
		archive: '/b/hermes-backup-2026.zip',
		dryRun: false,
		exitCode: 0,
		manifest: MANIFEST,
		planned: [],
		skipped: [],
		excluded: [],
		followedLinks: [],
		databases: [DB],
		problems: [],
		bytes: 2048,
		seal: 'seal',
		verified: true,
		pruned: [],
		keptDrilled: null,
		tarballs: null,
		keep: 5,
		debrisRemoved: [],
		credentials: ['.env'],
		recorded: true,
		ms: 20.4,
		phases: {walk: 1},
		...partial,
	};
}

describe('humanBackup', () => {
	it('says the archive, its members, size and read-back, each database, the next step and the warning', () => {
		expect([...humanBackup(result())]).toEqual([
			'hfx backup: /h → /b/hermes-backup-2026.zip',
			'  2 members, 2.0 KiB, mode 0600, verified (read back: size, CRC-32, seal, every member against the manifest)',
			'  ✓ state.db: schema v30, 2 sessions, 1 message, integrity_check ok; one snapshot (0 restarts, WAL pinned 4 ms)',
			'Next: hfx restore --drill /b/hermes-backup-2026.zip   (then hfx gate passes)',
			CREDENTIALS_WARNING,
		]);
	});

	it("lists a dry run's files and writes nothing, with no next step", () => {
		const lines = [
			...humanBackup(
				result({
					dryRun: true,
					archive: null,
					manifest: null,
					planned: [
						{path: 'state.db', kind: 'db', size: 4096},
						{path: 'config.yaml', kind: 'file', size: 100},
					],
				}),
			),
		];
		expect(lines).toEqual([
			'hfx backup --dry-run: /h (nothing written)',
			'would include 2 files, 4.1 KiB:',
			'  db   state.db  4.0 KiB',
			'       config.yaml  100 B',
			CREDENTIALS_WARNING,
		]);
	});

	it('says a failed check, an owner stopped, links, exclusions, skips, problems, pruning and INCOMPLETE', () => {
		const bad = {
			...DB,
			integrity: 'row 3 missing',
			openMode: 'private-copy' as const,
			counts: {a: 1},
			schemaVersion: null,
		};
		const excluded = Array.from({length: 9}, (_, i) => ({rel: `x${i}`, why: 'cache'}));
		const lines = [
			...humanBackup(
				result({
					exitCode: 1,
					verified: false,
					databases: [bad],
					followedLinks: [{rel: 'state.db', target: '/data/state.db'}],
					excluded,
					skipped: [{rel: 'big.bin', reason: 'too large'}],
					problems: ['a copy failed its check'],
					debrisRemoved: ['t1'],
					pruned: ['old.zip'],
					keptDrilled: 'drilled.zip',
				}),
			),
		];
		expect(lines.slice(1)).toEqual([
			'  2 members, 2.0 KiB, mode 0600, NOT verified',
			'  ✗ state.db: no schema version, 1 table, integrity_check FAILED: row 3 missing; one snapshot ' +
				'(0 restarts, WAL pinned 4 ms), owner stopped',
			'  state.db is a symbolic link: its target /data/state.db is included under that name ' +
				'(the store lookup reads it)',
			'  excluded as Hermes excludes them: x0, x1, x2, x3, x4, x5, x6, x7, … (9 in all; --json lists them)',
			'  ✗ skipped big.bin: too large',
			'  ✗ a copy failed its check',
			'  removed 1 leftover temp file of an interrupted earlier run',
			'  pruned old.zip (older than the newest archives kept by --keep)',
			'  kept drilled.zip beyond --keep: it is the newest drilled archive',
			'  INCOMPLETE: the archive was kept but older archives were not pruned; fix what is listed and ' +
				'run hfx backup again',
			'Next: hfx restore --drill /b/hermes-backup-2026.zip   (then hfx gate passes)',
			CREDENTIALS_WARNING,
		]);
	});
});

describe('backupJson', () => {
	it('counts the manifest members, lists the plan on a dry run only, renames rel to path, rounds the time', () => {
		const doc = backupJson(
			result({
				skipped: [{rel: 'a', reason: 'r'}],
				excluded: [{rel: 'b', why: 'w'}],
				followedLinks: [{rel: 'c', target: 't'}],
			}),
		);
		expect(doc).toMatchObject({
			root: '/h',
			archive: '/b/hermes-backup-2026.zip',
			members: 2,
			planned: undefined,
			skipped: [{path: 'a', reason: 'r'}],
			excluded: [{path: 'b', why: 'w'}],
			followedLinks: [{path: 'c', target: 't'}],
			credentials: ['.env'],
			ms: 20,
		});
		const planned = [{path: 'state.db', kind: 'db' as const, size: 1}];
		expect(backupJson(result({dryRun: true, manifest: null, planned}))).toMatchObject({members: 1, planned});
	});
});

describe('quick snapshot', () => {
	const quick: QuickSnapshotResult = {
		dir: '/h/state-snapshots/s1',
		id: 's1',
		manifest: {
			id: 's1',
			timestamp: 't',
			label: null,
			file_count: 1,
			total_size: 4096,
			files: {'state.db': 4096},
			failed_dbs: [],
			oversized_skipped: [],
			hfx: MANIFEST,
		},
		verified: true,
		problems: [],
		pruned: [],
		exitCode: 0,
		ms: 3.6,
	};

	it('says the snapshot, its size, its databases, that it does not survive a rebuild, and the warning', () => {
		expect([...quickLines(quick)]).toEqual([
			'hfx backup --quick: /h/state-snapshots/s1',
			'  1 file, 4.0 KiB, verified (every database: integrity_check, counts equal to its snapshot)',
			'  ✓ state.db: schema v30, 2 sessions, 1 message, integrity_check ok; one snapshot (0 restarts, WAL pinned 4 ms)',
			'  note: a quick snapshot lives inside the Hermes root; it does not survive a container rebuild ' +
				'(hfx backup -o DIR does)',
			'! This snapshot holds credentials (.env, auth.json, tokens): keep it private and never send it to anyone.',
		]);
		const bad = [...quickLines({...quick, verified: false, problems: ['p'], pruned: ['a', 'b']})];
		expect(bad[1]).toMatch(/NOT verified$/);
		expect(bad).toContain('  ✗ p');
		expect(bad).toContain('  pruned 2 older snapshots (the newest 20 are kept)');
	});

	it('carries the snapshot, its files and databases in --json', () => {
		expect(quickJson(quick)).toEqual({
			snapshot: '/h/state-snapshots/s1',
			id: 's1',
			verified: true,
			exitCode: 0,
			problems: [],
			pruned: [],
			files: {'state.db': 4096},
			databases: [DB],
			ms: 4,
		});
	});
});
