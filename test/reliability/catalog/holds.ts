/**
 * Class 9, what already holds under faults: archive byte flips by region (caught, restore
 * refused), a full disk at several points (tmpfs, root), EIO injected with strace on the store and
 * the archive, `ulimit -f`, two instances at once, and a writer SIGKILLed at random points while
 * hfx reads (the crashed store it leaves is then read with 0 bytes changed).
 */
import fs from 'node:fs';
import path from 'node:path';
import {prng} from '../../helpers/prng.js';
import {Trickle} from '../../backup/helpers.js';
import {archive, crashedHome, crashedStore, home} from '../fixtures.js';
import {leftIn} from '../temp-space.js';
import type {Fault, Step} from '../types.js';
import {ULIMIT} from './exits.js';
import {ok, recordsIn, refused, repairWrites, step, verdict} from './kit.js';
import {regions, type Region} from './zip-regions.js';

function flip(region: Region): Fault {
	return {
		id: `archive-flip-${region}`,
		cls: 9,
		outcome: 'finding',
		runs: 4,
		longRuns: 40,
		notes:
			`one byte of the sealed archive's ${region} flipped (a random byte and ` +
			`bit per run): verify says damaged, restore refuses`,
		async setup(t, run) {
			const a = await archive(t.dir('archives'));
			const span = (await regions(a))[region];
			const r = prng(run * 7919 + region.length);
			const at = span.start + Math.floor(r() * Math.max(1, span.end - span.start));
			const buf = fs.readFileSync(a);
			buf[at] = buf[at]! ^ (1 << Math.floor(r() * 8));
			fs.writeFileSync(a, buf);
			const target = path.join(t.dir('target'), 'home');
			return {
				evidence: [path.dirname(a)],
				mayWrite: recordsIn(path.dirname(a)),
				steps: [step('unsound', ['verify', a]), refused(['restore', a, '--to', target, '--yes'])],
			};
		},
	};
}

/** strace injecting EIO into the read calls on one file, the Nth of them and after. */
function eio(file: string, n: number): string[] {
	return [
		'strace',
		'-f',
		'-qq',
		'-o',
		'/dev/null',
		'-P',
		file,
		'-e',
		'trace=read,pread64,readv,preadv',
		'-e',
		`inject=read,pread64,readv,preadv:error=EIO:when=${n}+`,
	];
}

const EIO_POINTS = [1, 2, 3, 5, 8, 20];

function diskFull(
	id: string,
	notes: string,
	build: (t: Parameters<Fault['setup']>[0]) => Promise<{steps: Step[]; evidence: string[]; disk: string}>,
): Fault {
	return {
		id,
		cls: 9,
		outcome: 'refused',
		needs: ['root'],
		notes,
		async setup(t) {
			const s = await build(t);
			const ours = (): string[] =>
				leftIn(s.disk).filter(
					n => /(^|\/)\.hfx-|\.partial$/.test(n) || (n === 'home' && !s.evidence.includes(path.join(s.disk, 'home'))),
				);
			return {
				evidence: s.evidence,
				steps: s.steps,
				mayWrite: s.evidence.flatMap(d => recordsIn(d)),
				after: () => (ours().length > 0 ? `left on the full disk: ${ours().join(', ')}` : null),
			};
		},
	};
}

export const HOLDS: Fault[] = [
	flip('local-header'),
	flip('data'),
	flip('manifest'),
	flip('central-directory'),
	flip('end-record'),
	diskFull('disk-full-backup-output', 'backup -o a 2 MB tmpfs: refused before writing', async t => {
		const h = await home(t.dir('home'));
		const disk = t.tmpfs('size=256k')!;
		return {
			evidence: [h.root],
			disk,
			steps: [refused(['backup', '--home', h.root, '-o', disk], /free space|no space/i)],
		};
	}),
	diskFull('disk-full-restore-target', 'restore into a 128 KiB tmpfs: refused, nothing written', async t => {
		const a = await archive(t.dir('archives'));
		const disk = t.tmpfs('size=128k')!;
		return {
			evidence: [path.dirname(a)],
			disk,
			steps: [refused(['restore', a, '--to', path.join(disk, 'home'), '--yes'], /ENOSPC|free space|no space/i)],
		};
	}),
	diskFull(
		'disk-full-verify-tmpdir',
		'verify with TMPDIR on a 64 KiB tmpfs: "not judged", never "damaged"',
		async t => {
			const a = await archive(t.dir('archives'));
			const disk = t.tmpfs('size=64k')!;
			return {
				evidence: [path.dirname(a)],
				disk,
				steps: [refused(['verify', a], /free space|TMPDIR/i, {env: {TMPDIR: disk}})],
			};
		},
	),
	diskFull('disk-full-quick-snapshot', 'backup --quick of a home on a tmpfs filled to the last 8 KiB', async t => {
		const disk = t.tmpfs('size=6m')!;
		const h = await home(path.join(disk, 'home'));
		const st = fs.statfsSync(disk);
		fs.writeFileSync(path.join(disk, 'filler'), Buffer.alloc(Math.max(0, Number(st.bavail) * Number(st.bsize) - 8192)));
		return {
			evidence: [h.root],
			disk,
			steps: [refused(['backup', '--quick', '--home', h.root], /free space|no space|ENOSPC/i)],
		};
	}),
	{
		id: 'eio-reading-crashed-store',
		cls: 9,
		outcome: 'refused',
		runs: EIO_POINTS.length,
		needs: ['strace'],
		notes:
			`EIO injected (strace -e inject) into reads of a crashed state.db at ` +
			`read #${EIO_POINTS.join(', #')}: one line or a verdict, no stack trace, ` +
			`nothing changed`,
		async setup(t, run) {
			const s = await crashedStore(t.dir('store'));
			return {
				evidence: [s.dir],
				steps: [
					step('any', ['scan', '--db', s.db], {wrap: eio(s.db, EIO_POINTS[run]!)}),
					step('any', ['files', '--db', s.db], {wrap: eio(`${s.db}-wal`, EIO_POINTS[run]!)}),
				],
			};
		},
	},
	{
		id: 'eio-backup',
		cls: 9,
		outcome: 'refused',
		runs: 3,
		needs: ['strace'],
		notes:
			"EIO injected into the reads of the home's state.db during a backup: " +
			'refused or partial, no archive under a final name when refused',
		async setup(t, run) {
			const h = await home(t.dir('home'));
			const out = t.dir('out');
			return {
				evidence: [h.root],
				steps: [
					step('any', ['backup', '--home', h.root, '-o', out], {
						wrap: eio(h.db, EIO_POINTS[run]!),
						check: r =>
							r.code === 2 && fs.readdirSync(out).some(n => n.endsWith('.zip'))
								? 'refused, yet an archive is under a final name'
								: null,
					}),
				],
			};
		},
	},
	{
		id: 'eio-verify-archive',
		cls: 9,
		outcome: 'refused',
		runs: 3,
		needs: ['strace'],
		notes: 'EIO injected into reads of the archive: verify says it could not judge (exit 2) or damaged, never SOUND',
		async setup(t, run) {
			const a = await archive(t.dir('archives'));
			return {
				evidence: [path.dirname(a)],
				mayWrite: recordsIn(path.dirname(a)),
				steps: [step('unsound', ['verify', a], {wrap: eio(a, EIO_POINTS[run + 1]!), notMatch: /\bSOUND\b/})],
			};
		},
	},
	{
		id: 'ulimit-f-backup',
		cls: 9,
		outcome: 'refused',
		notes: 'backup under `ulimit -f 256`: one line naming the file size limit, nothing left',
		async setup(t) {
			const h = await home(t.dir('home'));
			fs.writeFileSync(
				path.join(h.root, 'memories/big.bin'),
				Buffer.from(Array.from({length: 600_000}, (_, i) => (i * 2_654_435_761) >>> 24)),
			);
			const out = t.dir('out');
			return {
				evidence: [h.root],
				steps: [refused(['backup', '--home', h.root, '-o', out], /file size limit|ulimit/i, {wrap: ULIMIT(256)})],
				after: () => (fs.readdirSync(out).length > 0 ? `left in -o: ${fs.readdirSync(out).join(', ')}` : null),
			};
		},
	},
	{
		id: 'two-scans-at-once-crashed',
		cls: 9,
		outcome: 'finding',
		notes: 'two scans of a crashed store at the same moment: both read it, 0 bytes changed',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			return {
				evidence: [s.dir],
				steps: [
					step('finding', ['scan', '--db', s.db], {concurrent: true}),
					step('finding', ['scan', '--db', s.db]),
					step('ok', ['sessions', '--db', s.db]),
				],
			};
		},
	},
	{
		id: 'two-backups-at-once',
		cls: 9,
		outcome: 'ok',
		notes:
			'two backups of one crashed home into one folder at once: one waits or ' +
			'is refused (the lock), every archive verifies, no debris',
		async setup(t) {
			const h = await crashedHome(t.dir('home'));
			const out = t.dir('out');
			const zipsOk = (): string | null =>
				fs.readdirSync(out).some(n => /^\.hfx-|\.partial$/.test(n))
					? `debris: ${fs.readdirSync(out).join(', ')}`
					: null;
			return {
				evidence: [h.root],
				steps: [
					step('any', ['backup', '--home', h.root, '-o', out], {concurrent: true}),
					step('any', ['backup', '--home', h.root, '-o', out]),
				],
				after: zipsOk,
			};
		},
	},
	{
		id: 'backup-and-repair-at-once',
		cls: 9,
		outcome: 'ok',
		notes:
			'a backup and `repair --apply --yes` of one home at once: each ends done ' +
			'or refused in one line; the audit chain verifies',
		async setup(t) {
			const h = await home(t.dir('home'));
			return {
				evidence: [h.root],
				mayWrite: repairWrites(h.db),
				steps: [
					step('any', ['backup', '--home', h.root, '-o', t.dir('out')], {concurrent: true}),
					step('any', ['repair', '--apply', '--yes', '--db', h.db]),
					step('any', ['audit', 'verify', path.join(h.root, 'hfx-audit.jsonl')]),
				],
			};
		},
	},
	{
		id: 'writer-sigkilled-while-reading',
		cls: 9,
		outcome: 'ok',
		runs: 3,
		longRuns: 20,
		notes:
			'a writer committing ~200/s is SIGKILLed at a random moment while scan ' +
			'reads; then the crashed store it left is read with 0 bytes changed',
		async setup(t, run) {
			const dir = t.dir('store');
			const db = path.join(dir, 'state.db');
			const w = new Trickle(db);
			t.onCleanup(async () => {
				w.child.kill('SIGKILL');
			});
			await w.ready();
			const delay = 100 + Math.floor(prng(run + 99)() * 900);
			const killed = new Promise<void>(resolve => {
				setTimeout(() => {
					w.child.once('exit', () => resolve());
					w.child.kill('SIGKILL');
				}, delay);
			});
			return {
				evidence: [dir],
				measureFrom: 1,
				steps: [
					verdict(['scan', '--db', db]),
					{...verdict(['scan', '--db', db]), before: () => killed},
					ok(['sessions', '--db', db]),
				],
			};
		},
	},
];
