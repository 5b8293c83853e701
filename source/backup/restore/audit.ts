/**
 * A restore and the repair audit trail (issue 15, point 4). An archive carries the trail as it was
 * when it was taken: restoring it over the live one would make every repair applied since vanish
 * from a trail that still verifies. So a restore never writes the archive's `hfx-audit.jsonl` or
 * `hfx-audit.head` where a live trail stands (a folder without one gets the archive's), and it
 * records itself in the trail beside each store it restores (store/audit-trail.ts, its hash chain).
 */
import fs from 'node:fs';
import path from 'node:path';
import {writerSqliteVersion} from '../../store/open/open.js';
import {errorMessage} from '../../ground/errors.js';
import {AUDIT_FILE, HEAD_FILE, appendAudit, assertAuditWritable} from '../../store/audit-trail.js';
import {toolVersion} from '../../ground/version.js';
import type {PlannedMember, RestoreTrail, RestoreRecord} from './types.js';

const TRAIL_FILES = new Set([AUDIT_FILE, HEAD_FILE]);

function hasLiveTrail(dir: string): boolean {
	return [AUDIT_FILE, HEAD_FILE].some(n => fs.lstatSync(path.join(dir, n), {throwIfNoEntry: false}) !== undefined);
}

/** The plan without the archive's trail files where a live trail stands, and the folders whose live trail is kept. */
export function keepLiveTrails(plan: PlannedMember[]): {plan: PlannedMember[]; kept: string[]} {
	const kept = new Set<string>();
	const rest = plan.filter(p => {
		const dir = path.dirname(p.dest);
		if (TRAIL_FILES.has(path.basename(p.dest)) && hasLiveTrail(dir)) {
			kept.add(path.join(dir, AUDIT_FILE));
			return false;
		}

		return true;
	});
	return {plan: rest, kept: [...kept]};
}

/** The trails a restore records itself in: beside every state.db it restores. */
export function trailsOf(plan: readonly PlannedMember[]): string[] {
	return [
		...new Set(
			plan
				.filter(p => p.m.kind === 'db' && path.basename(p.dest) === 'state.db')
				.map(p => path.join(path.dirname(p.dest), AUDIT_FILE)),
		),
	];
}

/**
 * Before any write: every trail that exists (or whose folder exists) must take the entry (hfx writes nothing it cannot
 * record).
 */
export function assertTrailsWritable(trails: readonly string[]): void {
	for (const t of trails) {
		if (fs.existsSync(path.dirname(t))) {
			assertAuditWritable(t);
		}
	}
}

/**
 * Appends the restore to each trail (after the commit); a trail that cannot take it is a problem,
 * said, never swallowed. Into a Hermes home (--home) every trail gets the entry (made if need be);
 * into another folder (--to) only a trail that is there (the archive's, restored).
 */
export function recordRestore(
	trails: readonly string[],
	kept: readonly string[],
	r: RestoreRecord & {mode: 'to' | 'home' | 'drill'},
): RestoreTrail[] {
	const version = writerSqliteVersion();
	return trails
		.filter(t => r.mode === 'home' || fs.existsSync(t))
		.map(trail => {
			const keptLive = kept.includes(trail);
			try {
				const entry = appendAudit(trail, {
					time: new Date().toISOString(),
					tool: {name: 'hfx', version: toolVersion()},
					sqliteVersion: version,
					argv: r.argv,
					mode: 'restore',
					database: path.join(path.dirname(trail), 'state.db'),
					archive: r.archive,
					preRestore: r.preRestoreDir,
					restoredFiles: r.restored,
					failedFiles: r.failed,
					keptLiveTrail: keptLive,
					result: r.status,
					exitCode: r.exitCode,
				});
				return {trail, keptLive, seq: entry.seq, problem: null};
			} catch (error) {
				return {
					trail,
					keptLive,
					seq: null,
					problem: `the restore could not be recorded in ${trail}: ${errorMessage(error)}`,
				};
			}
		});
}
