/**
 * Class 7 (truthful exits and one clear line), issue #29's class 5: untrue or misleading words.
 * An archive or snapshot with no Hermes store is never SOUND nor RESTORED; resource exhaustion is
 * named as it is (EMFILE under `ulimit -n`, ENOSPC on a full tmpfs, EDQUOT injected with strace,
 * EROFS on a read-only tmpfs), never a permission problem; a home that is a file is named so; a
 * refusal for lack of space leaves no empty state-snapshots/; a repair that applied under SIGTERM
 * exits as applied with the signal noted; a store held by hfx itself names hfx, not the gateway.
 */
import {spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {craftZip} from '../../backup/helpers.js';
import {home} from '../fixtures.js';
import {ROOT} from '../run-hfx.js';
import type {Fault, RunResult, Scene, Step, TempSpace} from '../types.js';
import {recordsIn, refused, repairWrites, step} from './kit.js';

function kind(
	id: string,
	outcome: Fault['outcome'],
	notes: string,
	setup: (t: TempSpace) => Promise<Scene> | Scene,
	needs?: Fault['needs'],
): Fault {
	return {id, cls: 7, outcome, notes, setup, needs};
}

const NEVER_SOUND = /✓ SOUND|✓ RESTORED/;

/** verify: not sound (exit 1), named as no store; restore: refused, the target never made. */
function noStoreSteps(artifact: string, target: string): Step[] {
	return [
		step('unsound', ['verify', artifact], {match: /no Hermes store/, notMatch: NEVER_SOUND}),
		refused(['restore', artifact, '--to', target, '--yes'], /no Hermes root in the archive.*nothing was written/, {
			notMatch: NEVER_SOUND,
		}),
	];
}

function noStoreScene(t: TempSpace, artifact: string): Scene {
	const target = path.join(t.dir('target'), 'home');
	return {
		evidence: [path.dirname(artifact)],
		mayWrite: recordsIn(path.dirname(artifact)),
		steps: noStoreSteps(artifact, target),
		after: () => (fs.existsSync(target) ? 'the refused restore made its target' : null),
	};
}

/** Runs the command with at most `n` open files. */
const NOFILE = (n: number): string[] => ['bash', '-c', `ulimit -n ${n}; exec "$@"`, 'hfx'];

/** strace making every open of `file` fail with `errno`. */
const OPEN_FAILS = (file: string, errno: string): string[] => [
	'strace',
	'-f',
	'-qq',
	'-o',
	'/dev/null',
	'-P',
	file,
	'-e',
	'trace=openat,open',
	'-e',
	`inject=openat,open:error=${errno}`,
];

const NOT_PERMISSION = /permission|sudo -u|chmod/i;

/**
 * A process whose program is hfx (as /proc/PID/cmdline shows it) holding `file` open, as hfx's TUI between reads;
 * stopped after the run.
 */
function hfxHolding(t: TempSpace, file: string): () => Promise<void> {
	return async () => {
		const bin = path.join(t.dir('holder'), 'hfx.js');
		fs.writeFileSync(
			bin,
			"const fs = require('node:fs'); fs.openSync(process.argv[2], 'r'); " +
				"process.stdout.write('held\\n'); setInterval(() => {}, 1000);\n",
		);
		const child = spawn(process.execPath, [bin, file], {stdio: ['ignore', 'pipe', 'ignore']});
		t.onCleanup(() => {
			child.kill('SIGKILL');
		});
		await new Promise<void>(resolve => child.stdout.once('data', () => resolve()));
	};
}

const quitHfx = /quit hfx \(pid \d+/;

export const WORDS: Fault[] = [
	kind(
		'words-empty-zip',
		'refused',
		'an empty zip: verify says no Hermes store (exit 1, never SOUND), restore refuses in one line, nothing made',
		t => {
			const a = path.join(t.dir('archives'), 'empty.zip');
			fs.writeFileSync(a, craftZip([]));
			return noStoreScene(t, a);
		},
	),
	kind('words-config-only-zip', 'refused', 'a zip holding only config.yaml: not SOUND, not RESTORED', t => {
		const a = path.join(t.dir('archives'), 'config-only.zip');
		fs.writeFileSync(a, craftZip([{name: 'config.yaml', data: Buffer.from('model: x\n')}]));
		return noStoreScene(t, a);
	}),
	kind('words-config-only-tar', 'refused', 'a tar.gz holding only config.yaml: not SOUND, not RESTORED', t => {
		const src = t.dir('src');
		fs.writeFileSync(path.join(src, 'config.yaml'), 'model: x\n');
		const a = path.join(t.dir('archives'), 'config-only.tar.gz');
		spawnSync('tar', ['czf', a, '-C', src, 'config.yaml']);
		return noStoreScene(t, a);
	}),
	kind(
		'words-config-only-snapshot',
		'refused',
		'a Hermes quick snapshot holding only config.yaml: not SOUND, not RESTORED',
		t => {
			const snap = path.join(t.dir('snapshots'), '20260101-000000');
			fs.mkdirSync(snap);
			fs.writeFileSync(path.join(snap, 'config.yaml'), 'model: x\n');
			fs.writeFileSync(path.join(snap, 'manifest.json'), JSON.stringify({files: {'config.yaml': 9}}));
			const target = path.join(t.dir('target'), 'home');
			return {evidence: [snap], mayWrite: recordsIn(path.dirname(snap)), steps: noStoreSteps(snap, target)};
		},
	),
	kind(
		'words-backup-no-store',
		'refused',
		'backup and backup --quick of a home holding only config.yaml: refused in one line, nothing written',
		t => {
			const h = t.dir('home');
			fs.writeFileSync(path.join(h, 'config.yaml'), 'model: x\n');
			const out = t.dir('out');
			return {
				evidence: [h, out],
				steps: [
					refused(['backup', '--home', h, '-o', out], /no Hermes store here.*nothing was written/),
					refused(['backup', '--quick', '--home', h], /no Hermes store here.*nothing was written/),
				],
			};
		},
	),
	kind(
		'words-emfile',
		'refused',
		'scan under `ulimit -n` 22…30: "too many open files … (ulimit -n)", never a permission problem',
		async t => {
			const h = await home(t.dir('home'));
			const steps = [22, 23, 24, 25, 26, 27, 28, 30].map(n =>
				step('any', ['scan', '--db', h.db], {wrap: NOFILE(n), notMatch: NOT_PERMISSION}),
			);
			const said = (r: RunResult): boolean => /too many open files.*\(EMFILE\).*ulimit -n/.test(r.stderr);
			let named = 0;
			for (const s of steps) {
				s.check = r => {
					named += said(r) ? 1 : 0;
					return r.stderr.includes('hfx: ') && !said(r)
						? `a refusal under a low ulimit -n that is not EMFILE: ${r.stderr.trim().slice(0, 200)}`
						: null;
				};
			}

			return {
				evidence: [h.root],
				steps,
				after: () => (named === 0 ? 'no limit from 22 to 30 made hfx name EMFILE' : null),
			};
		},
	),
	kind(
		'words-emfile-backup',
		'refused',
		'backup under `ulimit -n` 23…34: one line naming EMFILE (never two, never a permission problem), or a backup',
		async t => {
			const h = await home(t.dir('home'));
			const out = t.dir('out');
			const emfile = (r: RunResult): string | null =>
				r.code === 2 && !/too many open files.*ulimit -n/.test(r.stderr)
					? `a refusal under a low ulimit -n that is not EMFILE: ${r.stderr.trim().slice(0, 200)}`
					: null;
			return {
				evidence: [h.root],
				steps: Array.from({length: 12}, (_, i) => 23 + i).map(n =>
					step('any', ['backup', '--home', h.root, '-o', out], {
						wrap: NOFILE(n),
						notMatch: NOT_PERMISSION,
						check: emfile,
					}),
				),
			};
		},
	),
	kind(
		'words-edquot',
		'refused',
		'backup --quick with EDQUOT injected (strace) on the backup lock: "disk ' +
			'quota exceeded", never "full" nor an internal error',
		async t => {
			const h = await home(t.dir('home'));
			return {
				evidence: [h.root],
				steps: [
					refused(['backup', '--quick', '--home', h.root], /disk quota exceeded.*EDQUOT/, {
						wrap: OPEN_FAILS(path.join(h.root, '.hfx-backup.lock'), 'EDQUOT'),
						notMatch: /is full|internal error/,
					}),
				],
			};
		},
		['strace'],
	),
	kind(
		'words-enospc',
		'refused',
		'backup --quick and repair --apply on a tmpfs with 64 KiB left: "no ' +
			'space", and no empty state-snapshots/ left beside the store',
		async t => {
			const disk = t.tmpfs('size=6m')!;
			const h = await home(path.join(disk, 'home'));
			const st = fs.statfsSync(disk);
			fs.writeFileSync(
				path.join(disk, 'filler'),
				Buffer.alloc(Math.max(0, Number(st.bavail) * Number(st.bsize) - 64 * 1024)),
			);
			// The fixture home holds a Hermes snapshot already: take its folder away, so that the one the refusal would leave
			// shows.
			const snaps = path.join(h.root, 'state-snapshots');
			fs.rmSync(snaps, {recursive: true, force: true});
			const none = (): string | null => (fs.existsSync(snaps) ? `a refusal for lack of space left ${snaps}` : null);
			return {
				evidence: [h.root],
				mayWrite: repairWrites(h.db).filter(p => !p.endsWith('state-snapshots/')),
				steps: [
					refused(['backup', '--quick', '--home', h.root], /no space|ENOSPC|full/i, {check: none}),
					refused(['repair', '--apply', '--yes', '--db', h.db], /no space|ENOSPC|full/i, {check: none}),
				],
			};
		},
		['root'],
	),
	kind(
		'words-erofs',
		'refused',
		'backup -o a read-only tmpfs: "read-only file system", never a permission problem',
		async t => {
			const h = await home(t.dir('home'));
			const disk = t.tmpfs('size=16m,ro')!;
			return {
				evidence: [h.root],
				steps: [
					refused(['backup', '--home', h.root, '-o', disk], /read-only file system|EROFS/i, {notMatch: NOT_PERMISSION}),
				],
			};
		},
		['root'],
	),
	kind(
		'words-erofs-home',
		'refused',
		'backup --quick and repair --apply on a home mounted read-only: ' +
			'"read-only file system", never ENOENT, a permission problem or "run as ' +
			'the owner"',
		async t => {
			const disk = t.tmpfs('size=8m')!;
			const h = await home(path.join(disk, 'home'));
			fs.rmSync(path.join(h.root, 'state-snapshots'), {recursive: true, force: true});
			spawnSync('mount', ['-o', 'remount,ro', disk]);
			const ro = /read-only file system/;
			return {
				evidence: [h.root],
				steps: [
					refused(['backup', '--quick', '--home', h.root], ro, {notMatch: /ENOENT|no such file|-o DIR;|permission/i}),
					refused(['repair', '--apply', '--yes', '--db', h.db], ro, {notMatch: /owner|permission/i}),
				],
			};
		},
		['root'],
	),
	kind(
		'words-home-is-file',
		'refused',
		'`scan`, `sessions`, `metrics --home FILE`: the home is a file, never FILE/state.db',
		t => {
			const dir = t.dir('store');
			const file = path.join(dir, 'not-a-home');
			fs.writeFileSync(file, 'x');
			const is = /not-a-home: a Hermes home must be a folder, and this is a file/;
			return {
				evidence: [dir],
				steps: ['scan', 'sessions', 'metrics'].map(c =>
					refused([c, '--home', file], is, {notMatch: /not-a-home\/state\.db/}),
				),
			};
		},
	),
	kind(
		'words-sigterm-applied',
		'ok',
		'SIGTERM while `repair --apply` commits: it finishes, says applied, ' +
			'exits 0 (as applied) and notes the signal in one line',
		async t => {
			const h = await home(t.dir('home'));
			const audit = path.join(h.root, 'hfx-audit.jsonl');
			const applied = (r: RunResult): string | null => {
				if (r.code !== 0 || !/now owns/.test(r.stdout)) {
					return (
						`expected an applied repair (exit 0, "now owns"), got ` +
						`exit ${r.code ?? r.signal}: ${r.stderr.trim().split('\n').at(-1)}`
					);
				}

				return r.stderr.split('\n').filter(l => /SIGTERM.*finished and was recorded.*exit 0/.test(l)).length === 1
					? null
					: 'the signal is not noted in one line';
			};

			return {
				evidence: [h.root],
				mayWrite: repairWrites(h.db),
				steps: [
					step('killed', ['repair', '--apply', '--yes', '--db', h.db], {
						env: {HFX_TEST_PAUSE_AT: 'after-commit', HFX_TEST_PAUSE_MS: '2000'},
						kill: {signal: 'SIGTERM', when: () => fs.existsSync(audit), afterMs: 20_000},
						check: applied,
					}),
				],
			};
		},
	),
	kind(
		'words-held-by-hfx-restore',
		'refused',
		'a restore refused while hfx itself holds the target store: names hfx (quit hfx, its pid), never the gateway',
		async t => {
			const h = await home(t.dir('home'));
			const out = t.dir('out');
			spawnSync(process.execPath, [path.join(ROOT, 'dist/hfx.js'), 'backup', '--home', h.root, '-o', out], {
				env: {...process.env, HOME: t.home, TMPDIR: t.tmpdir},
			});
			const a = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip')) ?? 'missing.zip');
			return {
				evidence: [h.root, out],
				mayWrite: recordsIn(out),
				steps: [
					refused(['restore', a, '--home', h.root, '--yes'], quitHfx, {
						before: hfxHolding(t, h.db),
						notMatch: /gateway/,
					}),
				],
			};
		},
	),
	kind(
		'words-held-by-hfx-undo',
		'refused',
		'`repair --undo` refused while hfx itself holds the store: names hfx (quit hfx, its pid), never "stop the gateway"',
		async t => {
			const h = await home(t.dir('home'));
			return {
				evidence: [h.root],
				mayWrite: repairWrites(h.db),
				steps: [
					step('ok', ['repair', '--apply', '--yes', '--db', h.db]),
					step('any', ['repair', '--undo', '1', '--yes', '--db', h.db], {
						before: hfxHolding(t, h.db),
						match: quitHfx,
						notMatch: /stop the gateway/,
						check: r => (r.code === 0 ? 'the undo ran while another process held the store' : null),
					}),
				],
			};
		},
	),
];
