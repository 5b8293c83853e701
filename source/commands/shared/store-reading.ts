/**
 * One reading of one store for `hfx metrics`: loaded and analysed as `hfx scan` does (read-only,
 * lean columns), its files probed as `hfx files` does (WAL frames, holders), and the backups that
 * hold it. A store hfx cannot read is a reading too (its refusal kind and line), never skipped.
 */
import path from 'node:path';
import {defaultBackupDir} from '../../backup/create/backup.js';
import {type BackupEntry, listBackups} from '../../backup/ops/list.js';
import {backupAges} from '../../report/metrics/backup-ages.js';
import type {StoreReading} from '../../report/metrics/metrics-samples.js';
import {FilesProbe, type FilesReport} from '../../store/files/files-probe.js';
import {gatewayBuild} from '../../store/places/gateway-build.js';
import type {StoreLocation} from '../../store/locate.js';
import {type GlobalFlags, type Io, loadAndAnalyze} from '../context.js';

/** Every archive in <root>/backups and every quick snapshot under the root (none without a root). */
export function rootBackups(root: string | null, now: number): BackupEntry[] {
	return root === null ? [] : listBackups({root, dirs: [defaultBackupDir(root)], now});
}

/** The store's files once: its WAL scanned, its holders read from /proc (no SQLite connection). */
export async function probeOnce(dbPath: string): Promise<FilesReport> {
	const probe = new FilesProbe(dbPath, {holdersEveryMs: 0});
	try {
		return await probe.read();
	} finally {
		await probe.close();
	}
}

export async function readStoreOnce(
	location: StoreLocation,
	flags: GlobalFlags,
	backups: readonly BackupEntry[],
	io: Io,
): Promise<StoreReading> {
	const at = io.now();
	const started = performance.now();
	const loaded = loadAndAnalyze(location, flags, 'lean');
	// Probed after the connection is closed (the probe reads the -shm in a child process anyway),
	// and also when the store could not be read: a holder of a deleted -wal is why, at times.
	const files = await probeOnce(loaded.ok ? loaded.facts.path : path.resolve(location.path));
	return {
		profile: location.owner,
		at,
		seconds: (performance.now() - started) / 1000,
		result: loaded.ok
			? {ok: true, facts: loaded.facts, analysis: loaded.analysis}
			: {ok: false, kind: loaded.error.kind, line: loaded.error.line()},
		files,
		backups: backupAges(backups, location.owner, at),
		build: gatewayBuild(path.dirname(path.resolve(location.path))),
	};
}
