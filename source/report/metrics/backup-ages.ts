/**
 * How old the newest verified and the newest drilled backup of one store are: an archive of the
 * Hermes root holds every store under it; a quick snapshot holds its own profile's store. A backup
 * whose bytes changed since it was recorded, or that is known incomplete, counts for neither.
 * Pure: the listing in, two ages out (null: there is none).
 */
import type {BackupEntry} from '../../backup/ops/list.js';

export type BackupAges = {verifiedAgeSeconds: number | null; drilledAgeSeconds: number | null};

function newestAge(entries: readonly BackupEntry[], now: number): number | null {
	const times = entries.map(e => e.createdAt).filter((t): t is number => t !== null);
	return times.length === 0 ? null : Math.max(0, now - Math.max(...times));
}

export function backupAges(entries: readonly BackupEntry[], profile: string, now: number): BackupAges {
	const holding = entries.filter(
		e => (e.kind !== 'snapshot' || e.profile === profile) && !e.changedSinceRecorded && e.complete !== false,
	);
	return {
		verifiedAgeSeconds: newestAge(
			holding.filter(e => e.verified !== null),
			now,
		),
		drilledAgeSeconds: newestAge(
			holding.filter(e => e.drilled !== null),
			now,
		),
	};
}
