/**
 * What `hfx verify` prints: the verdict of an archive or snapshot folder as text lines, the next
 * safe step when it is not sound, and the --json document.
 */
import type {VerifyReport} from '../../backup/verify/verify.js';
import {onlyNoStore} from '../../backup/verify/report.js';
import {bytes, plural} from '../../text/format.js';

export function verifyJson(r: VerifyReport, recorded: boolean) {
	return {
		path: r.path,
		kind: r.kind,
		status: r.status,
		exitCode: r.exitCode,
		sealed: r.sealed,
		members: r.members,
		bytes: r.bytes,
		createdAt: r.manifest?.createdAt ?? null,
		complete: r.manifest?.complete ?? null,
		problems: r.problems,
		databases: r.databases.map(({inventory: _inventory, ...d}) => d),
		notes: r.notes,
		live: r.live ?? [],
		recorded,
		ms: Math.round(r.ms),
	};
}

export function humanVerify(r: VerifyReport): string[] {
	const lines: string[] = [];
	const what = r.kind === 'snapshot' ? 'snapshot folder' : r.kind === 'unknown' ? 'file' : `${r.kind} archive`;
	const head =
		r.status === 'sound'
			? '✓ SOUND'
			: onlyNoStore(r)
				? '✗ NO HERMES STORE'
				: r.status === 'damaged'
					? '✗ DAMAGED'
					: '✗ UNREADABLE';
	lines.push(
		`${head}  ${r.path}  ` +
			`(${what}${r.kind === 'zip' ? (r.sealed ? ', sealed' : ', no hfx seal') : ''}, ` +
			`${plural(r.members, 'member')}, ${bytes(r.bytes)})`,
	);
	if (r.manifest) {
		lines.push(
			`  taken ${r.manifest.createdAt} from ${r.manifest.source.root} ` +
				`on ${r.manifest.source.host}${r.manifest.complete ? '' : ' (INCOMPLETE when taken)'}`,
		);
	}

	for (const d of r.databases) {
		const counts =
			d.counts.sessions === undefined
				? plural(Object.keys(d.counts).length, 'table')
				: `${plural(d.counts.sessions, 'session')}, ${plural(d.counts.messages ?? 0, 'message')}`;
		lines.push(
			`  ${d.ok ? '✓' : '✗'} ${d.path}: ` +
				`integrity_check ` +
				`${d.integrity.length === 1 && d.integrity[0] === 'ok' ? 'ok' : d.integrity.slice(0, 2).join('; ')}, ` +
				`${counts}${d.expected ? (d.ok ? ', counts match the manifest' : '') : ''}` +
				`${d.schemaVersion === null ? '' : `, schema v${d.schemaVersion}`}`,
		);
		for (const p of d.problems) {
			lines.push(`      ${p}`);
		}
	}

	for (const p of r.problems.slice(0, 50)) {
		lines.push(`  ✗ ${p.where}: ${p.what}`);
	}

	if (r.problems.length > 50) {
		lines.push(`  … ${r.problems.length - 50} more (--json lists all)`);
	}

	for (const n of r.notes) {
		lines.push(`  note: ${n}`);
	}

	if (r.status === 'sound' && r.kind === 'zip') {
		// Only what was checked: a Hermes zip has no seal and no manifest to hold a sha256 against.
		lines.push(
			r.sealed && r.manifest
				? '  every byte checked: seal, structure, CRC-32 and sha256 of every member, databases on a temp extraction'
				: '  every byte checked: structure and CRC-32 of every member, databases on a temp extraction',
		);
	}

	if (r.status !== 'sound') {
		lines.push(`Next: ${nextStep(r)}`);
	}

	return lines;
}

/**
 * A tar whose only findings are its SQLite sidecars (tarred while the agent ran) restores: the -wal is folded, never
 * written.
 */
function onlySidecars(r: VerifyReport): boolean {
	return (
		(r.kind === 'tar' || r.kind === 'tar.gz') &&
		r.problems.length > 0 &&
		r.problems.every(p => p.sidecar === true) &&
		r.databases.every(d => d.ok)
	);
}

export function nextStep(r: VerifyReport): string {
	if (onlyNoStore(r)) {
		return (
			'this is not a backup of a Hermes home: do not restore from it; pick a ' +
			'backup that holds state.db (hfx backups)'
		);
	}

	return onlySidecars(r)
		? `hfx restore folds the -wal's commits into its database and never writes ` +
				`a sidecar: see it with hfx restore ${r.path} --home DIR --dry-run`
		: 'do not restore from this; pick another backup (hfx backups)';
}
