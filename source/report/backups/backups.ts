/**
 * A backup's verified and drilled state in words ("yes, 2h ago", "FAILED", "CHANGED since"):
 * the one wording `hfx backups` and the TUI's Backups pane share; `hfx backups`' table and its
 * --json document.
 */
import type {BackupEntry} from '../../backup/ops/list.js';
import type {TarballRetention} from '../../backup/create/prune-tarballs.js';
import {ago, bytes, table} from '../../text/format.js';

export function backupStatus(e: BackupEntry, now: number): {verified: string; drilled: string} {
	const verified = e.verified
		? `yes, ${ago(e.verified.at, now)}` +
			`${e.verified.level === 'write' ? ' (at write)' : ''}${e.verified.live ? ' (taken live)' : ''}`
		: e.changedSinceRecorded
			? 'CHANGED since'
			: e.lastFailure?.event === 'verify'
				? 'FAILED'
				: 'no';
	const drilled = e.drilled ? `yes, ${ago(e.drilled.at, now)}` : e.lastFailure?.event === 'drill' ? 'FAILED' : 'no';
	return {verified, drilled};
}

/**
 * A backup's row in words, as `hfx backups` and the Backups pane both say it: its kind (a snapshot's with its profile),
 * complete, verified, drilled, and whose home it is.
 */
export function backupWords(
	e: BackupEntry,
	now: number,
): {kind: string; complete: string; verified: string; drilled: string; home: string} {
	return {
		kind: e.kind === 'snapshot' ? `snapshot (${e.profile})` : e.kind,
		complete: e.complete === null ? '?' : e.complete ? 'yes' : 'NO',
		...backupStatus(e, now),
		home: e.owner === 'this' ? 'this' : e.owner === 'other' ? `OTHER: ${e.home ?? 'by its sessions'}` : '?',
	};
}

/**
 * What --keep did with the stamped tarballs beside the archives (seed 004's `NAME-YYYYmmdd-HHMMSS.tar.gz`), in `hfx
 * backup`'s words.
 */
export function tarballRetentionLines(t: TarballRetention | null, keep: number): string[] {
	if (!t) {
		return [];
	}

	const lines = t.series.map(
		s =>
			`  --keep ${keep} covers the tarballs ${s.pattern} ` +
			`here: ${keep <= 0 ? 'all' : s.kept} ` +
			`kept${s.pruned.length > 0 ? `, pruned ${s.pruned.join(', ')}` : ''}` +
			`${s.keptDrilled ? ` (${s.keptDrilled} kept beyond --keep: the newest drilled)` : ''}`,
	);
	if (t.unknown.length > 0) {
		lines.push(
			`  not counted by --keep: ${t.unknown.join(', ')} (no verify or drill ` +
				`has recorded whose ` +
				`home ${t.unknown.length === 1 ? 'it is' : 'they are'}: hfx verify FILE)`,
		);
	}

	return lines;
}

/** `hfx backups --json`: the root, the archive folders, and every archive and snapshot listed. */
export function backupsJson(root: string | null, dirs: readonly string[], entries: readonly BackupEntry[]) {
	return {root, dirs, backups: entries};
}

/** `hfx backups`: the table of archives and snapshots, or what to do when there is none. */
export function backupLines(
	entries: readonly BackupEntry[],
	dirs: readonly string[],
	root: string | null,
	now: number,
): string[] {
	if (entries.length === 0) {
		return [`no backups in ${dirs.join(', ')} and no quick snapshots under ${root}. Next: hfx backup`];
	}

	const rows = entries.map(e => ({e, s: backupWords(e, now)}));
	return [
		...table(rows, [
			{header: 'NAME', value: r => r.e.name, max: 48},
			{header: 'KIND', value: r => r.s.kind},
			{header: 'AGE', value: r => ago(r.e.createdAt, now), align: 'right'},
			{header: 'SIZE', value: r => bytes(r.e.size), align: 'right'},
			{header: 'COMPLETE', value: r => r.s.complete},
			{header: 'VERIFIED', value: r => r.s.verified},
			{header: 'DRILLED', value: r => r.s.drilled},
			{header: 'HOME', value: r => r.s.home, max: 40},
		]),
		'',
		`archives in ${dirs.join(', ')}; snapshots under ${root}/[profiles/*/]state-snapshots/`,
	];
}
