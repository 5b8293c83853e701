/**
 * What `hfx restore` prints (report/backups/restore.ts): a restore's verdict, what was restored and checked,
 * the files kept aside, what it dropped, the audit trail, the failures and the next step; a dry run's
 * preview; a drill's verdict per store; the per-chat preview; and their --json documents.
 */
import {describe, expect, it} from 'vitest';
import type {DrillResult, DrillScan} from '../../../source/backup/ops/drill.js';
import {comparisonLines} from '../../../source/backup/restore/compare.js';
import type {RestoreResult} from '../../../source/backup/restore/types.js';
import type {VerifyReport} from '../../../source/backup/verify/report.js';
import {restorePreviewLines} from '../../../source/report/analysis/diff.js';
import {
	chatPreviewLines,
	drillJson,
	drillLines,
	restoreDryRunJson,
	restoreJson,
	restoreLines,
} from '../../../source/report/backups/restore.js';

const VERIFY: VerifyReport = {
	path: '/b/a.zip',
	kind: 'zip',
	status: 'sound',
	exitCode: 0,
	manifest: null,
	sealed: true,
	seal: 's',
	members: 1,
	bytes: 10,
	problems: [],
	databases: [],
	notes: [],
	ms: 1,
};
const CHECKS = {members: 'size and sha256 of every member', databases: 'counts equal to the manifest'};
const DROPS = [
	{
		path: 'state.db',
		live: '/h/state.db',
		dropped: {sessions: 1, messages: 3},
		added: {sessions: 0, messages: 0},
		error: null,
	},
];

function restore(partial: Partial<RestoreResult> = {}): RestoreResult {
	return {
		archive: '/b/a.zip',
		target: '/h',
		exitCode: 0,
		status: 'restored',
		verify: VERIFY,
		restored: ['state.db', 'config.yaml'],
		failed: [],
		preRestoreDir: null,
		keptAside: [],
		postProblems: [],
		databases: [
			{
				path: 'state.db',
				ok: true,
				integrity: ['ok'],
				counts: {sessions: 2, messages: 5},
				schemaVersion: 30,
				problems: [],
			},
		],
		manifest: null,
		audit: [],
		comparison: [],
		layout: {root: null, outside: [], runtime: [], sidecars: [], folded: []},
		mapping: {root: null, entries: []},
		checks: CHECKS,
		ms: 8.5,
		...partial,
	};
}

describe('restoreLines', () => {
	it('says a restore, what it restored and re-checked, each database, and starting the gateway next', () => {
		expect(restoreLines(restore())).toEqual([
			'✓ RESTORED  /b/a.zip → /h',
			'  2 files restored: size and sha256 of every member; credentials and databases mode 0600',
			'  ✓ state.db: integrity_check ok, 2 sessions, 5 messages, counts equal to the manifest',
			'Next: start the gateway; hfx scan shows the restored state',
		]);
	});

	it('says a partial restore: files kept, what it dropped, the audit entry, what failed, where to look', () => {
		const lines = restoreLines(
			restore({
				status: 'partial',
				exitCode: 1,
				preRestoreDir: '/h/pre-restore-1',
				databases: [
					{path: 'x.db', ok: false, integrity: ['bad page'], counts: {t: 1}, schemaVersion: null, problems: []},
				],
				comparison: DROPS,
				audit: [
					{trail: '/h/hfx-audit.jsonl', keptLive: true, seq: 4, problem: null},
					{trail: '/h/other.jsonl', keptLive: false, seq: null, problem: 'unreadable'},
				],
				failed: [{path: 'config.yaml', reason: 'EACCES'}],
				postProblems: ['state.db: counts differ'],
			}),
		);
		expect(lines).toEqual([
			'✗ PARTIAL  /b/a.zip → /h',
			'  2 files restored: size and sha256 of every member; credentials and databases mode 0600',
			'  ✗ x.db: integrity_check bad page, 1 table',
			'  the files found there before (state.db, -wal, -shm as found) are kept in /h/pre-restore-1',
			...comparisonLines(DROPS, false).map(l => `  ${l}`),
			"  audit trail /h/hfx-audit.jsonl: the live trail kept (the archive's older copy was not restored); this " +
				'restore is entry 4',
			'  ✗ not restored: config.yaml (EACCES)',
			'  ✗ state.db: counts differ',
			'Next: the previous files are in /h/pre-restore-1; fix the cause above and restore again',
		]);
		expect(restoreLines(restore({status: 'partial', exitCode: 1})).at(-1)).toBe(
			'Next: the previous files are in (none were replaced); fix the cause above and restore again',
		);
	});

	it('says what a dry run would drop, or that it drops nothing, and that nothing was written', () => {
		expect(restoreLines(restore({status: 'dry-run', restored: [], comparison: []}))).toEqual([
			'restore --dry-run /b/a.zip → /h: verified sound; nothing was written',
			'  the archive holds no Hermes store to compare',
			'Next: the restore drops nothing the live store has',
		]);
		const lines = restoreLines(
			restore({
				status: 'dry-run',
				exitCode: 1,
				comparison: DROPS,
				layout: {root: null, outside: [], runtime: [], sidecars: ['state.db-wal'], folded: []},
			}),
		);
		expect(lines[0]).toBe(
			'restore --dry-run /b/a.zip → /h: verified sound but for its sidecars (below); nothing was written',
		);
		expect(lines).toContain('  not restored: state.db-wal (a SQLite sidecar: never written as a file)');
		expect(lines).toContain(`  ${comparisonLines(DROPS)[0]}`);
		expect(lines.at(-1)).toBe(
			'Next: export what would be dropped first (hfx sessions), or take a new backup and restore that',
		);
	});
});

describe('restoreJson', () => {
	it('carries the outcome, what was not restored and why, the mapping, and the time rounded', () => {
		const r = restore({
			layout: {root: 'home/', outside: ['etc/x'], runtime: ['gateway.pid'], sidecars: ['state.db-shm'], folded: []},
			mapping: {root: 'home/', entries: [{archive: 'home/state.db', target: '/h/state.db'}]},
		});
		expect(restoreJson(r)).toMatchObject({
			archive: '/b/a.zip',
			target: '/h',
			status: 'restored',
			root: 'home/',
			mapping: [{archive: 'home/state.db', target: '/h/state.db'}],
			notRestored: {outsideRoot: ['etc/x'], runtimeState: ['gateway.pid'], sidecars: ['state.db-shm']},
			folded: [],
			checked: CHECKS,
			ms: 9,
		});
		expect(restoreDryRunJson(r, null)).toEqual({...restoreJson(r), chats: null});
	});
});

describe('chatPreviewLines', () => {
	it('says nothing without a preview, why it cannot tell, or the per-chat preview', () => {
		expect(chatPreviewLines(null)).toEqual([]);
		expect(chatPreviewLines({diff: null, problem: 'the live store is unreadable'})).toEqual([
			'  per chat: cannot tell (the live store is unreadable)',
		]);
		expect(chatPreviewLines({diff: [], problem: null})).toEqual(restorePreviewLines([]));
	});
});

describe('drill', () => {
	const scan: DrillScan = {
		path: 'state.db',
		label: 'default',
		ok: true,
		sessions: 2,
		expectedSessions: 2,
		orphans: 0,
		rollbackRisks: 1,
		findings: 0,
		healthy: true,
		error: null,
		unreadable: null,
		newestSessions: [],
	};
	const drill: DrillResult = {
		archive: '/b/a.zip',
		exitCode: 0,
		ok: true,
		restore: restore(),
		scans: [scan],
		problems: [],
		recorded: true,
		ms: 30.2,
	};

	it('says a passed drill, what it restored into scratch, each store scanned, and where it was recorded', () => {
		expect(drillLines(drill)).toEqual([
			'✓ DRILL PASSED  /b/a.zip',
			'  restored 2 files into a scratch folder (removed again): size and sha256 of every member; databases: ' +
				'integrity_check, counts equal to the manifest',
			'  ✓ state.db (default): 2 sessions (manifest: 2), 0 orphans, 1 rollback risk, healthy',
			'  recorded in /b/hfx-records.jsonl',
		]);
	});

	it('says a failed drill, findings in the data, a store hfx cannot scan, a failed scan once, and no record', () => {
		const lines = drillLines({
			...drill,
			ok: false,
			exitCode: 1,
			restore: restore({postProblems: ['x']}),
			scans: [
				{...scan, ok: false, healthy: false, expectedSessions: null, orphans: 1},
				{...scan, path: 'w.db', label: 'work', unreadable: 'sessions is a VIEW'},
				{...scan, path: 'e.db', label: 'e', error: 'cannot open'},
			],
			problems: ['e.db: cannot open'],
			recorded: false,
		});
		expect(lines).toEqual([
			'✗ DRILL FAILED  /b/a.zip',
			'  restored 2 files into a scratch folder (removed again): size and sha256 of every member; databases: ' +
				'integrity_check, counts equal to the manifest EXCEPT the problems below',
			'  ✗ state.db (default): 2 sessions, 1 orphan, 1 rollback risk (findings in the data itself, as in the ' +
				'live store: hfx scan shows them)',
			'  ! w.db (work): restored byte for byte and checked as every database, but hfx cannot scan it: ' +
				'sessions is a VIEW',
			'  ✗ e.db: cannot open',
			'  NOTE: the outcome could not be recorded (the folder is not writable)',
		]);
	});

	it('carries the verdict, how many files were restored and the scans in --json', () => {
		expect(drillJson(drill)).toEqual({
			archive: '/b/a.zip',
			ok: true,
			exitCode: 0,
			restored: 2,
			scans: [scan],
			problems: [],
			recorded: true,
			ms: 30,
		});
		expect(drillJson({...drill, restore: null}).restored).toBe(0);
	});
});
