/**
 * Small builders the catalog entries share: steps by expected outcome, the read-only commands a
 * store is given, and a bare store folder with one planted file.
 */
import fs from 'node:fs';
import path from 'node:path';
import type {Step, StepExpect} from '../types.js';

export function step(expect: StepExpect, args: string[], more: Partial<Step> = {}): Step {
	return {args, expect, ...more};
}

export const refused = (args: string[], match?: RegExp, more: Partial<Step> = {}): Step =>
	step('refused', args, {match, ...more});
export const finding = (args: string[], more: Partial<Step> = {}): Step => step('finding', args, more);
export const ok = (args: string[], more: Partial<Step> = {}): Step => step('ok', args, more);
export const verdict = (args: string[], more: Partial<Step> = {}): Step => step('any-verdict', args, more);

/** The read-only commands of class 1 (each on `--db`), with what they exit on the incident store. */
export function readOnlyOn(db: string, ids?: {orphan: string}): Step[] {
	return [
		finding(['scan', '--db', db]),
		ok(['sessions', '--db', db]),
		finding(['routing', '--db', db]),
		...(ids ? [ok(['lineage', ids.orphan, '--db', db])] : []),
		verdict(['repair', '--db', db]),
		verdict(['files', '--db', db]),
	];
}

/** A store folder holding only `state.db` made by `make` (a file, a FIFO, a folder...). */
export function plantedStore(dir: string, make: (db: string) => void): {dir: string; db: string} {
	const db = path.join(dir, 'state.db');
	make(db);
	return {dir, db};
}

/** Every refusal names the file (here: the store's path) and a next step. */
export function namesFile(file: string): RegExp {
	return new RegExp(`^hfx: .*${path.basename(file).replaceAll('.', '\\.')}.*Next: `);
}

export function write(file: string, content: string | Buffer): string {
	fs.mkdirSync(path.dirname(file), {recursive: true});
	fs.writeFileSync(file, content);
	return file;
}

/** A step whose arguments are known only when it starts (the archive an earlier step wrote). */
export function late(expect: StepExpect, make: () => string[], more: Partial<Step> = {}): Step {
	const s: Step = {args: ['(computed at start)'], expect, ...more};
	s.before = () => {
		s.args = make();
	};
	return s;
}

/** The records file verify, drill and backup keep in an archive folder (by design: not evidence of the store). */
export function recordsIn(...dirs: string[]): string[] {
	return dirs.map(d => path.join(d, 'hfx-records.jsonl'));
}

/**
 * What a confirmed `repair --apply` of `db` is meant to write: the store, its sidecars, the audit trail, its snapshot.
 */
export function repairWrites(db: string): string[] {
	const dir = path.dirname(db);
	// The snapshot's lock is the confirmed repair's too: a SIGKILL leaves it, the next write takes it over.
	return [
		db,
		`${db}-wal`,
		`${db}-shm`,
		`${db}-journal`,
		path.join(dir, 'hfx-audit.jsonl'),
		path.join(dir, 'hfx-audit.head'),
		path.join(dir, '.hfx-backup.lock'),
		`${path.join(dir, 'state-snapshots')}/`,
	];
}

/**
 * A kill point's `when` for a process that follows (hfx watch): once every pattern has been seen in its stdout, and
 * `lingerMs` after (to see what it says next, say a second event where one is due). Never after a fixed time alone:
 * a loaded machine may take longer than any timer to the first reading. Make one per run (it remembers when).
 */
export function seen(patterns: RegExp[], lingerMs = 0): (stdout: string) => boolean {
	let at = 0;
	return stdout => {
		if (at === 0 && patterns.every(p => p.test(stdout))) {
			at = Date.now();
		}

		return at > 0 && Date.now() - at >= lingerMs;
	};
}
