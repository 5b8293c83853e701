/**
 * Class 6: crash windows and clean-up. kill -9 at random points of backup, restore, repair and
 * verify (looped, a fixed seed per run): the next run sweeps our debris (no .hfx-* partial, no
 * stale lock, no extraction left in TMPDIR) and its result is complete; an applied repair always
 * has its audit entry. Ctrl-C while a private read copy is open leaves nothing in TMPDIR; a
 * private copy checks free space first and refuses with the size it needs (a crashed store's: a
 * stopped one is read in place, in-place-reads.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import {prng} from '../../helpers/prng.js';
import {archive, bigHome as bigHomeCopy, home} from '../fixtures.js';
import {leftIn} from '../temp-space.js';
import type {Fault, RunResult, Step, TempSpace} from '../types.js';
import {late, ok, recordsIn, refused, repairWrites, step, verdict} from './kit.js';
import {leaveSidecars} from './in-place-reads.js';

/** A kill point for run `run`: SIGKILL after 60–1200 ms (the same for a given run). */
export function killAt(id: string, run: number): Step['kill'] {
	const r = prng([...id].reduce((a, c) => a * 31 + c.charCodeAt(0), run + 1) >>> 0);
	return {signal: 'SIGKILL', afterMs: 60 + Math.floor(r() * 1140)};
}

/** Our own debris in a folder (top level): partials, staging folders, our lock (.hfx-backup.lock). */
export function debris(dir: string): string[] {
	return fs.existsSync(dir) ? fs.readdirSync(dir).filter(n => /^\.hfx-|\.partial$/.test(n)) : [];
}

const zips = (dir: string): string[] =>
	fs
		.readdirSync(dir)
		.filter(n => n.endsWith('.zip'))
		.sort();

const bigHome = async (t: TempSpace) => bigHomeCopy(t.dir('home'));

/** The big home with its store crashed (-wal and -shm, no holder): read from a private copy. */
/**
 * A big home whose store a killed reader left with its -wal alone (its -shm removed): read from a private copy (a
 * crashed store with both sidecars is read in place, its -shm read-only, and copies nothing).
 */
async function crashedBigHome(t: TempSpace) {
	const h = await bigHome(t);
	await leaveSidecars(h.db);
	fs.rmSync(`${h.db}-shm`);
	return h;
}

function sweptAfter(...dirs: string[]): () => string | null {
	return () => {
		const left = dirs.flatMap(d => debris(d).map(n => path.join(d, n)));
		return left.length > 0 ? `debris of the killed run not swept by the next: ${left.slice(0, 3).join(', ')}` : null;
	};
}

export const CRASH_WINDOWS: Fault[] = [
	{
		id: 'kill9-backup-looped',
		cls: 6,
		outcome: 'partial-cleaned',
		runs: 3,
		notes:
			'kill -9 at a random point of a backup; the next backup sweeps, takes the lock over, and its archive verifies',
		async setup(t, run) {
			const h = await bigHome(t);
			const out = t.dir('out');
			return {
				evidence: [h.root],
				steps: [
					step('killed', ['backup', '--home', h.root, '-o', out], {kill: killAt('kill9-backup', run)}),
					ok(['backup', '--home', h.root, '-o', out]),
					late('ok', () => ['verify', path.join(out, zips(out).at(-1) ?? 'none.zip')]),
				],
				after: sweptAfter(out, h.root),
			};
		},
	},
	{
		id: 'kill9-restore-looped',
		cls: 6,
		outcome: 'partial-cleaned',
		runs: 3,
		notes: 'kill -9 at a random point of a restore into a home; the next restore sweeps the partials in the target',
		async setup(t, run) {
			const a = await archive(t.dir('archives'));
			const target = await home(t.dir('target'));
			return {
				evidence: [path.dirname(a)],
				mayWrite: recordsIn(path.dirname(a)),
				steps: [
					step('killed', ['restore', a, '--home', target.root, '--yes'], {
						kill: {signal: 'SIGKILL', afterMs: 40 + (killAt('kill9-restore', run)!.afterMs! % 500)},
					}),
					ok(['restore', a, '--home', target.root, '--yes']),
				],
				after: sweptAfter(target.root, path.dirname(target.root)),
			};
		},
	},
	{
		id: 'kill9-repair-looped',
		cls: 6,
		outcome: 'partial-cleaned',
		runs: 4,
		notes:
			'kill -9 at a random point of `repair --apply --yes`; afterwards the ' +
			'audit chain verifies and an applied repair has its entry',
		async setup(t, run) {
			const h = await home(t.dir('home'));
			const audit = path.join(h.root, 'hfx-audit.jsonl');
			const entryFor = (r: RunResult): string | null => {
				const adoptable = /"verdict":\s*"adoptable"/.test(r.stdout);
				const entries = fs.existsSync(audit)
					? fs.readFileSync(audit, 'utf8').trim().split('\n').filter(Boolean).length
					: 0;
				return !adoptable && entries === 0
					? 'the repair was applied but the audit trail has no entry (it can never be undone)'
					: null;
			};

			return {
				evidence: [h.root],
				mayWrite: repairWrites(h.db),
				steps: [
					step('killed', ['repair', '--apply', '--yes', '--db', h.db], {
						kill: {signal: 'SIGKILL', afterMs: 30 + (killAt('kill9-repair', run)!.afterMs! % 700)},
					}),
					verdict(['scan', '--db', h.db, '--json'], {check: entryFor}),
					step('any', ['audit', 'verify', audit], {
						check: r =>
							r.code === 0 || (!fs.existsSync(audit) && /no audit trail/.test(r.stderr))
								? null
								: `audit verify exit ${r.code}: ${r.stderr.trim()}`,
					}),
					// The next write sweeps what the killed one left: its stale lock is taken over and released.
					step('any', ['repair', '--apply', '--yes', '--db', h.db], {
						check: () =>
							fs.existsSync(path.join(h.root, '.hfx-backup.lock'))
								? "the killed repair's stale .hfx-backup.lock is still there after the next repair"
								: null,
					}),
				],
			};
		},
	},
	{
		id: 'kill9-verify-extraction',
		cls: 6,
		outcome: 'partial-cleaned',
		runs: 3,
		notes: "kill -9 during verify's temp extraction (it holds .env); the next verify sweeps TMPDIR",
		async setup(t, run) {
			const a = await archive(t.dir('archives'));
			return {
				evidence: [path.dirname(a)],
				mayWrite: recordsIn(path.dirname(a)),
				steps: [
					step('killed', ['verify', a], {
						kill: {signal: 'SIGKILL', when: () => leftIn(t.tmpdir).length > 0, afterMs: 3000 + run},
					}),
					ok(['verify', a]),
				],
			};
		},
	},
	{
		id: 'ctrl-c-with-private-copy-open',
		cls: 6,
		outcome: 'partial-cleaned',
		notes: "SIGINT (as Ctrl-C sends it) while scan's private copy of a crashed store is in TMPDIR: nothing left there",
		async setup(t) {
			const h = await crashedBigHome(t);
			return {
				evidence: [h.root],
				steps: [
					step('killed', ['scan', '--db', h.db], {
						kill: {signal: 'SIGINT', when: () => leftIn(t.tmpdir).length > 0, afterMs: 5000},
					}),
				],
			};
		},
	},
	{
		id: 'kill9-with-private-copy-open',
		cls: 6,
		outcome: 'partial-cleaned',
		notes: 'SIGKILL while the private copy of a crashed store is in TMPDIR; the next read-only run sweeps it',
		async setup(t) {
			const h = await crashedBigHome(t);
			return {
				evidence: [h.root],
				steps: [
					step('killed', ['scan', '--db', h.db], {
						kill: {signal: 'SIGKILL', when: () => leftIn(t.tmpdir).length > 0, afterMs: 5000},
					}),
					verdict(['sessions', '--db', h.db]),
				],
			};
		},
	},
	{
		id: 'private-copy-free-space',
		cls: 6,
		outcome: 'refused',
		needs: ['root'],
		notes: 'a crashed 25 MB store, TMPDIR on a 2 MB tmpfs: refused with the size needed, nothing left',
		async setup(t) {
			const h = await crashedBigHome(t);
			const tiny = t.tmpfs('size=2m');
			if (!tiny) {
				throw new Error('mounting a tmpfs failed');
			}

			return {
				evidence: [h.root],
				steps: [refused(['scan', '--db', h.db], /free space|space .*needed|needs? .*MiB/i, {env: {TMPDIR: tiny}})],
				after: () => (leftIn(tiny).length > 0 ? `left on the tmpfs: ${leftIn(tiny).join(', ')}` : null),
			};
		},
	},
];
