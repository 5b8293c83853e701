/**
 * What `hfx doctor` prints (report/backups/doctor.ts): where the root lives and on what, the config's
 * settings, what survives and what does not, the last verified backup (or where none was found),
 * each store's files and holders, the warnings; the --json document is the report itself.
 */
import {describe, expect, it} from 'vitest';
import type {DoctorReport} from '../../../source/backup/ops/doctor.js';
import {doctorJson, humanDoctor} from '../../../source/report/backups/doctor.js';

function report(partial: Partial<DoctorReport> = {}): DoctorReport {
	return {
		root: '/home/u/.hermes',
		mount: {
			mountId: 1,
			parentId: 0,
			device: '8:1',
			root: '/',
			mountPoint: '/',
			options: 'rw',
			fsType: 'ext4',
			source: '/dev/sda1',
			superOptions: 'rw',
		},
		inContainer: false,
		containerHint: null,
		layer: 'host',
		config: {
			path: '/home/u/.hermes/config.yaml',
			found: true,
			error: null,
			backend: 'local',
			containerPersistent: null,
			journalMode: null,
			cwd: null,
		},
		survives: ['a restart of the gateway'],
		lost: ['a rebuilt disk'],
		backupDirs: ['/b'],
		lastVerified: null,
		stores: [],
		warnings: [],
		exitCode: 0,
		...partial,
	};
}

describe('humanDoctor', () => {
	it('says the root, its mount, its layer, the config, what survives and what does not', () => {
		expect(humanDoctor(report())).toEqual([
			'Hermes root  /home/u/.hermes',
			'  mount      /  ext4  /dev/sda1',
			'  lives on   the host filesystem',
			'config.yaml  terminal.backend: local, terminal.container_persistent: (not set)',
			'',
			'What survives:',
			'  ✓ a restart of the gateway',
			'What does not:',
			'  ✗ a rebuilt disk',
			'',
			'Last verified backup: none in /b or the quick snapshots under /home/u/.hermes',
			'',
			'✓ No warnings.',
		]);
	});

	it("names a bind mount's folder, the container, the journal mode set, and a config error or absence", () => {
		const mount = {...report().mount!, root: '/vol/hermes', mountPoint: '/data', source: '/dev/sdb'};
		const lines = humanDoctor(
			report({
				mount,
				inContainer: true,
				containerHint: '/.dockerenv exists',
				layer: 'container-writable-layer',
				config: {...report().config, containerPersistent: false, journalMode: 'wal'},
			}),
		);
		expect(lines[1]).toBe('  mount      /data  ext4  /dev/sdb  (folder /vol/hermes of it)');
		expect(lines[2]).toBe(
			"  lives on   the container's own root filesystem, its writable layer (NOT a volume); " +
				'in a container (/.dockerenv exists)',
		);
		expect(lines[3]).toBe(
			'config.yaml  terminal.backend: local, terminal.container_persistent: false, database.journal_mode: wal',
		);
		expect(humanDoctor(report({config: {...report().config, error: 'not YAML'}}))[3]).toBe('config.yaml  not YAML');
		expect(humanDoctor(report({config: {...report().config, found: false}}))[3]).toBe('config.yaml  not found');
		expect(humanDoctor(report({mount: null, layer: 'unknown'})).slice(1, 3)).toEqual([
			'  mount      unknown',
			'  lives on   an unknown filesystem',
		]);
	});

	it('says the last verified backup, its age, whether drilled and on the same filesystem', () => {
		const last = {name: 'a.zip', path: '/b/a.zip', ageSeconds: 7200, drilled: true, sameMount: true};
		expect(humanDoctor(report({lastVerified: last}))).toContain(
			'Last verified backup: a.zip, 2.0 hours old, drilled, on the same filesystem as the root',
		);
		expect(humanDoctor(report({lastVerified: {...last, drilled: false, sameMount: false}}))).toContain(
			'Last verified backup: a.zip, 2.0 hours old, not drilled',
		);
	});

	it("says each store's mode, its sidecars and holders, and every warning", () => {
		const store = {
			path: '/home/u/.hermes/state.db',
			label: 'default',
			journalMode: 'wal' as const,
			dbBytes: 4096,
			walBytes: null,
			shm: false,
			holders: [],
			deletedWal: false,
			error: null,
		};
		const lines = humanDoctor(
			report({
				stores: [
					store,
					{...store, label: 'work', walBytes: 512, shm: true, holders: ['pid 7 (hermes)', 'pid 9 (python)']},
					{...store, label: 'old', journalMode: 'delete'},
					{...store, label: 'bad', journalMode: null, dbBytes: null},
				],
				warnings: ['the root is in memory', 'no backup'],
			}),
		);
		expect(lines).toContain(
			'Store default: /home/u/.hermes/state.db, 4.0 KiB, WAL mode, -wal absent, -shm absent; no process holds it',
		);
		expect(lines).toContain(
			'Store work: /home/u/.hermes/state.db, 4.0 KiB, WAL mode, -wal 512 B, -shm present; ' +
				'pid 7 (hermes); pid 9 (python)',
		);
		expect(lines).toContain('Store old: /home/u/.hermes/state.db, 4.0 KiB, rollback-journal mode; no process holds it');
		expect(lines).toContain('Store bad: /home/u/.hermes/state.db, —, unreadable; no process holds it');
		expect(lines.slice(-2)).toEqual(['! the root is in memory', '! no backup']);
		expect(lines).not.toContain('✓ No warnings.');
	});
});

describe('doctorJson', () => {
	it('is the report as examined', () => {
		const r = report();
		expect(doctorJson(r)).toBe(r);
	});
});
