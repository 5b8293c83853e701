/**
 * What `hfx backup` prints: an archive's (or a dry run's) and a quick snapshot's text lines, and
 * their --json documents.
 */
import type {BackupResult} from '../../backup/create/backup.js';
import type {QuickSnapshotResult} from '../../backup/create/snapshot.js';
import {bytes, plural} from '../../text/format.js';
import {tarballRetentionLines} from './backups.js';

export const CREDENTIALS_WARNING =
	'! This archive holds credentials (.env, auth.json, tokens): keep it private and never send it to anyone.';

export function backupJson(r: BackupResult) {
	return {
		root: r.root,
		archive: r.archive,
		dryRun: r.dryRun,
		exitCode: r.exitCode,
		verified: r.verified,
		bytes: r.bytes,
		seal: r.seal,
		members: r.manifest?.members.length ?? r.planned.length,
		databases: r.databases,
		planned: r.dryRun ? r.planned : undefined,
		skipped: r.skipped.map(s => ({path: s.rel, reason: s.reason})),
		problems: r.problems,
		excluded: r.excluded.map(e => ({path: e.rel, why: e.why})),
		followedLinks: r.followedLinks.map(l => ({path: l.rel, target: l.target})),
		pruned: r.pruned,
		keptDrilled: r.keptDrilled,
		tarballs: r.tarballs,
		debrisRemoved: r.debrisRemoved,
		credentials: r.credentials,
		recorded: r.recorded,
		ms: Math.round(r.ms),
		phases: r.phases,
	};
}

function dbLine(d: BackupResult['databases'][number]): string {
	const sessions = d.counts.sessions;
	const messages = d.counts.messages;
	const what =
		sessions === undefined
			? plural(Object.keys(d.counts).length, 'table')
			: `${plural(sessions, 'session')}, ${plural(messages ?? 0, 'message')}`;
	return (
		`  ${d.integrity === 'ok' ? '✓' : '✗'} ${d.path}: ` +
		`${d.schemaVersion === null ? 'no schema version' : `schema v${d.schemaVersion}`}, ${what}, ` +
		`integrity_check ${d.integrity === 'ok' ? 'ok' : `FAILED: ${d.integrity}`}; ` +
		`one snapshot (${d.restarts} restarts, WAL pinned ${d.pinnedMs} ` +
		`ms)${d.openMode === 'private-copy' ? ', owner stopped' : ''}`
	);
}

export function* humanBackup(r: BackupResult): Generator<string> {
	if (r.dryRun) {
		yield `hfx backup --dry-run: ${r.root} (nothing written)`;
		yield `would include ${plural(r.planned.length, 'file')}, ${bytes(r.planned.reduce((a, p) => a + p.size, 0))}:`;
		for (const p of r.planned) {
			yield `  ${p.kind === 'db' ? 'db  ' : '    '} ${p.path}  ${bytes(p.size)}`;
		}
	} else {
		yield `hfx backup: ${r.root} → ${r.archive}`;
		yield `  ${plural(r.manifest?.members.length ?? 0, 'member')}, ${bytes(r.bytes)}, ` +
			`mode 0600, ` +
			(r.verified ? 'verified (read back: size, CRC-32, seal, every member against the manifest)' : 'NOT verified');
		for (const d of r.databases) {
			yield dbLine(d);
		}
	}

	for (const l of r.followedLinks) {
		yield `  ${l.rel} is a symbolic link: its target ${l.target} is included under ` +
			`that name (the store lookup reads it)`;
	}

	if (r.excluded.length > 0) {
		const shown = r.excluded
			.slice(0, 8)
			.map(e => e.rel)
			.join(', ');
		yield `  excluded as Hermes excludes ` +
			`them: ${shown}${r.excluded.length > 8 ? `, … (${r.excluded.length} in all; --json lists them)` : ''}`;
	}

	for (const s of r.skipped) {
		yield `  ✗ skipped ${s.rel}: ${s.reason}`;
	}

	for (const p of r.problems) {
		yield `  ✗ ${p}`;
	}

	if (r.debrisRemoved.length > 0) {
		yield `  removed ${plural(r.debrisRemoved.length, 'leftover temp file')} of an interrupted earlier run`;
	}

	if (r.pruned.length > 0) {
		yield `  pruned ${r.pruned.join(', ')} (older than the newest archives kept by --keep)`;
	}

	if (r.keptDrilled) {
		yield `  kept ${r.keptDrilled} beyond --keep: it is the newest drilled archive`;
	}

	yield* tarballRetentionLines(r.tarballs, r.keep);

	if (!r.dryRun && r.exitCode === 1) {
		yield '  INCOMPLETE: the archive was kept but older archives were not pruned; ' +
			'fix what is listed and run hfx backup again';
	}

	if (!r.dryRun && r.archive) {
		yield `Next: hfx restore --drill ${r.archive}   (then hfx gate passes)`;
	}

	yield CREDENTIALS_WARNING;
}

export function quickJson(r: QuickSnapshotResult) {
	return {
		snapshot: r.dir,
		id: r.id,
		verified: r.verified,
		exitCode: r.exitCode,
		problems: r.problems,
		pruned: r.pruned,
		files: r.manifest.files,
		databases: r.manifest.hfx.databases,
		ms: Math.round(r.ms),
	};
}

export function* quickLines(r: QuickSnapshotResult): Generator<string> {
	yield `hfx backup --quick: ${r.dir}`;
	yield `  ${plural(r.manifest.file_count, 'file')}, ${bytes(r.manifest.total_size)}, ` +
		`${r.verified ? 'verified (every database: integrity_check, counts equal to its snapshot)' : 'NOT verified'}`;
	for (const d of r.manifest.hfx.databases) {
		yield dbLine(d);
	}

	for (const p of r.problems) {
		yield `  ✗ ${p}`;
	}

	if (r.pruned.length > 0) {
		yield `  pruned ${plural(r.pruned.length, 'older snapshot')} (the newest 20 are kept)`;
	}

	yield '  note: a quick snapshot lives inside the Hermes root; it does not ' +
		'survive a container rebuild (hfx backup -o DIR does)';
	yield CREDENTIALS_WARNING.replace('This archive', 'This snapshot');
}
