/**
 * --keep over the tarballs of seed 004's naming in the folder hfx backup prunes: `NAME-YYYYmmdd-
 * HHMMSS.tar.gz` (or `.tgz`, `.tar`), as `tar czf hermes-data-$(date -u +%Y%m%d-%H%M%S).tar.gz -C
 * / data` makes them. Each NAME and extension is one series, kept to its newest N by the stamp
 * (and its newest drilled one beyond them). Only this home's tarballs count: whose home a tarball
 * is comes from its stores' newest sessions, recorded by a verify or a drill (identity.ts). A
 * tarball nobody verified, or of another home, is never counted and never pruned; the result
 * says which were left for that reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import {fsyncDir} from '../durable.js';
import {identityOf, ownerByIdentity} from '../identity.js';
import {appendRecord, fingerprintOf, readRecords, statusFor} from '../records.js';

export const TARBALL_PATTERN = /^(.+)-(\d{8}-\d{6})\.(tar\.gz|tgz|tar)$/;

export type TarballRetention = {
	/** Each series of this home's tarballs as `NAME-*.tar.gz`, with how many of it are kept. */
	series: Array<{pattern: string; kept: number; pruned: string[]; keptDrilled: string | null}>;
	/** Stamped tarballs never counted: whose home they are is unknown (never verified) or another's. */
	unknown: string[];
};

type Tarball = {name: string; series: string; stamp: string; drilled: boolean};

/** This home's stamped tarballs in `dir`, and the names left out as of an unknown home. */
function tarballsOfHome(dir: string, root: string, names: readonly string[]): {mine: Tarball[]; unknown: string[]} {
	const records = readRecords(dir);
	const mine: Tarball[] = [];
	const unknown: string[] = [];
	for (const name of names) {
		const m = TARBALL_PATTERN.exec(name);
		if (!m) {
			continue;
		}

		const status = statusFor(records, name, fingerprintOf(path.join(dir, name)));
		const identity = identityOf(status.drilled?.details?.identity) ?? identityOf(status.verified?.details?.identity);
		const owner = identity ? ownerByIdentity(identity, root).owner : 'unknown';
		if (owner === 'this') {
			mine.push({name, series: `${m[1]!}-*.${m[3]!}`, stamp: m[2]!, drilled: status.drilled !== null});
		} else if (owner === 'unknown') {
			unknown.push(name);
		}
	}

	return {mine, unknown};
}

/**
 * Deletes this home's older stamped tarballs beyond the newest `keep` of each series (never the newest drilled one).
 */
export function pruneTarballs(dir: string, keep: number, root: string): TarballRetention {
	let names: string[];
	try {
		names = fs.readdirSync(dir).filter(n => !n.startsWith('.'));
	} catch {
		return {series: [], unknown: []};
	}

	const {mine, unknown} = tarballsOfHome(dir, root, names);
	const bySeries = new Map<string, Tarball[]>();
	for (const t of mine) {
		bySeries.set(t.series, [...(bySeries.get(t.series) ?? []), t]);
	}

	const series: TarballRetention['series'] = [];
	for (const [pattern, all] of [...bySeries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
		const newestFirst = all.sort((a, b) => (a.stamp < b.stamp ? 1 : a.stamp > b.stamp ? -1 : 0));
		const kept = new Set(keep <= 0 ? newestFirst.map(t => t.name) : newestFirst.slice(0, keep).map(t => t.name));
		const drilled = newestFirst.find(t => t.drilled)?.name ?? null;
		const keptDrilled = drilled && !kept.has(drilled) ? drilled : null;
		if (keptDrilled) {
			kept.add(keptDrilled);
		}

		const pruned = newestFirst.filter(t => !kept.has(t.name)).map(t => t.name);
		for (const name of pruned) {
			const file = path.join(dir, name);
			const fp = fingerprintOf(file);
			fs.rmSync(file, {force: true});
			appendRecord(dir, {
				at: Date.now() / 1000,
				event: 'prune',
				artifact: name,
				kind: 'tar',
				ok: true,
				exitCode: 0,
				size: fp.size,
				mtimeMs: fp.mtimeMs,
				summary: `pruned by --keep ${keep} (series ${pattern})`,
			});
		}

		series.push({pattern, kept: newestFirst.length - pruned.length, pruned, keptDrilled});
	}

	if (series.some(s => s.pruned.length > 0)) {
		fsyncDir(dir);
	}

	return {series, unknown};
}
