/**
 * `hfx backups [--home ROOT] [-o DIR] [--json]`: archives and quick snapshots with age, size,
 * verified and drilled status. Exit 0 listed, 1 no backup at all, 2 could not run.
 */
import {type BackupEntry, listBackups, placeByIdentity} from '../backup/ops/list.js';
import type {ExitCode} from '../errors.js';
import {backupStatus} from '../report/backups.js';
import {ago, bytes, table} from '../text/format.js';
import {backupDirs, failIfAbandoned, resolveRoot} from './shared/backup-root.js';
import {type GlobalFlags, type Io, emit, guarded} from './context.js';

export type BackupsFlags = GlobalFlags & {output?: string};

export async function runBackups(flags: BackupsFlags, io: Io): Promise<ExitCode> {
	failIfAbandoned(io);
	return guarded(io, flags, () => {
		const root = resolveRoot(flags, io);
		const dirs = backupDirs(flags, root);
		const now = io.now();
		const entries = placeByIdentity(listBackups({root, dirs, now}), root);
		emit(io, flags, {json: () => ({root, dirs, backups: entries}), text: () => backupLines(entries, dirs, root, now)});
		return entries.length > 0 ? 0 : 1;
	});
}

function backupLines(entries: readonly BackupEntry[], dirs: readonly string[], root: string | null, now: number): string[] {
	if (entries.length === 0) {
		return [`no backups in ${dirs.join(', ')} and no quick snapshots under ${root}. Next: hfx backup`];
	}

	const rows = entries.map(e => ({e, s: backupStatus(e, now)}));
	return [
		...table(rows, [
			{header: 'NAME', value: r => r.e.name, max: 48},
			{header: 'KIND', value: r => r.e.kind === 'snapshot' ? `snapshot (${r.e.profile})` : r.e.kind},
			{header: 'AGE', value: r => ago(r.e.createdAt, now), align: 'right'},
			{header: 'SIZE', value: r => bytes(r.e.size), align: 'right'},
			{header: 'COMPLETE', value: r => r.e.complete === null ? '?' : (r.e.complete ? 'yes' : 'NO')},
			{header: 'VERIFIED', value: r => r.s.verified},
			{header: 'DRILLED', value: r => r.s.drilled},
			{header: 'HOME', value: r => (r.e.owner === 'this' ? 'this' : (r.e.owner === 'other' ? `OTHER: ${r.e.home ?? 'by its sessions'}` : '?')), max: 40},
		]),
		'',
		`archives in ${dirs.join(', ')}; snapshots under ${root}/[profiles/*/]state-snapshots/`,
	];
}
