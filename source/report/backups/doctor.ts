/**
 * What `hfx doctor` prints: where the Hermes root lives, what survives a restart or a rebuild, the
 * last verified backup, the stores and the warnings; and the --json document (the report itself).
 */
import type {DoctorReport} from '../../backup/ops/doctor.js';
import {duration} from '../../forensics/duration.js';
import {bytes} from '../../text/format.js';

const LAYER_WORDS: Record<DoctorReport['layer'], string> = {
	'container-writable-layer': "the container's own root filesystem, its writable layer (NOT a volume)",
	'volume-or-bind-mount': 'a volume or bind mount (kept when the container is removed)',
	memory: 'memory (tmpfs)',
	host: 'the host filesystem',
	unknown: 'an unknown filesystem',
};

export function humanDoctor(r: DoctorReport): string[] {
	const lines: string[] = [];
	lines.push(`Hermes root  ${r.root}`);
	lines.push(
		`  mount      ` +
			(r.mount
				? `${r.mount.mountPoint}  ${r.mount.fsType}  ${r.mount.source}` +
					(r.mount.root !== '/' ? `  (folder ${r.mount.root} of it)` : '')
				: 'unknown'),
	);
	lines.push(`  lives on   ${LAYER_WORDS[r.layer]}${r.inContainer ? `; in a container (${r.containerHint})` : ''}`);
	lines.push(
		`config.yaml  ` +
			(r.config.found
				? (r.config.error ??
					`terminal.backend: ${r.config.backend ?? '(not set)'}, ` +
						`terminal.container_persistent: ${r.config.containerPersistent ?? '(not set)'}` +
						(r.config.journalMode ? `, database.journal_mode: ${r.config.journalMode}` : ''))
				: 'not found'),
	);
	lines.push('');
	lines.push('What survives:');
	for (const s of r.survives) {
		lines.push(`  ✓ ${s}`);
	}

	lines.push('What does not:');
	for (const s of r.lost) {
		lines.push(`  ✗ ${s}`);
	}

	lines.push('');
	lines.push(
		r.lastVerified
			? `Last verified ` +
					`backup: ${r.lastVerified.name}, ${duration(r.lastVerified.ageSeconds)} ` +
					`old, ${r.lastVerified.drilled ? 'drilled' : 'not drilled'}` +
					`${r.lastVerified.sameMount ? ', on the same filesystem as the root' : ''}`
			: `Last verified backup: none in ${r.backupDirs.join(', ')} or the quick snapshots under ${r.root}`,
	);
	for (const s of r.stores) {
		const wal =
			s.journalMode === 'wal'
				? `WAL mode, -wal ${s.walBytes === null ? 'absent' : bytes(s.walBytes)}, -shm ${s.shm ? 'present' : 'absent'}`
				: s.journalMode === 'delete'
					? 'rollback-journal mode'
					: 'unreadable';
		lines.push(
			`Store ${s.label}: ${s.path}, ${bytes(s.dbBytes)}, ${wal}; ` +
				`${s.holders.length === 0 ? 'no process holds it' : s.holders.join('; ')}`,
		);
	}

	lines.push('');
	if (r.warnings.length === 0) {
		lines.push('✓ No warnings.');
	} else {
		for (const w of r.warnings) {
			lines.push(`! ${w}`);
		}
	}

	return lines;
}

/** `hfx doctor --json`: the report as examined. */
export function doctorJson(r: DoctorReport): DoctorReport {
	return r;
}
