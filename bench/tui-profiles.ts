/**
 * Section "tui-profiles": what following every profile of a root costs (issue #26: "Following
 * every profile of a root costs ≤ 1.5× following one"). A root of 3 profiles, each the 1M-message
 * store: `default` and `work` copies (each written in turn), `ops` a hard link of the bench store
 * that nobody writes; every store held open by a stand-in agent, so -wal and -shm exist and hfx
 * reads them in place. `tui-writer.ts` commits 200 times a second into one profile; the CPU share
 * of one core of the TUI's process tree (10 s, in a 140x40 pty, as the tui section measures it) is
 * taken with `hfx --home ROOT` (every profile followed, `default` focused) and with
 * `hfx --home ROOT --profile P` (only the written one), in interleaved rounds whose order
 * alternates. Two cases: the writes land in the focused profile (`default`), and in one the panes
 * do not show (`work`: read at most once a second). The ratio of the medians is judged.
 */
import {type ChildProcess, spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {ensureBenchDb} from './generate.js';
import {type BenchContext, type Row, type Section, type SectionResult, median} from './harness.js';
import {cpuShare, heldStoreCopy, sleep, tree} from './tui.js';

export const RATE = 200;
const TARGET_RATIO = 1.5;
/** Interleaved rounds per case (each runs both followers once). */
const ROUNDS = Number(process.env.BENCH_PROFILES_ROUNDS ?? 3);
/** The CPU window per follower, after the writer's first 5 s. */
const WINDOW_MS = Number(process.env.BENCH_PROFILES_WINDOW_S ?? 10) * 1000;

const ANSI = /\u001B\[[0-9;?]*[ -/]*[@-~]|\u001B[()][0-9A-Za-z]|\u001B[=>]/g;

/** A program in a real pty of 140x40 (`script`), without colour, as in the tui section. */
function inPty(command: string): ChildProcess {
	return spawn('script', ['-qfec', `stty cols 140 rows 40; exec ${command}`, '/dev/null'], {
		env: {...process.env, CI: 'false', NO_COLOR: '1', FORCE_COLOR: '0'},
		stdio: ['pipe', 'pipe', 'pipe'],
	});
}

export type Root = {root: string; owners: Database.Database[]; sessions: Record<'default' | 'work', string>};

/** A store under the root held open by a stand-in agent (its read makes the -wal and -shm). */
function hold(db: string): Database.Database {
	const owner = new Database(db, {fileMustExist: true});
	owner.prepare('SELECT count(*) FROM sessions').pluck().get();
	return owner;
}

/** The root: default (a copy), profiles/work (a copy), profiles/ops (a hard link of the bench store, never written). */
export function makeRoot(ctx: BenchContext): Root {
	const main = heldStoreCopy(ctx, 'tui-profiles');
	const work = heldStoreCopy(ctx, 'tui-profiles-work');
	const profiles = path.join(main.dir, 'profiles');
	fs.mkdirSync(path.join(profiles, 'work'), {recursive: true});
	fs.mkdirSync(path.join(profiles, 'ops'), {recursive: true});
	// The copy moves into the root (its owner closed first: its -wal and -shm stay with the folder left behind).
	work.owner.close();
	fs.renameSync(work.db, path.join(profiles, 'work', 'state.db'));
	fs.rmSync(work.dir, {recursive: true, force: true});
	fs.linkSync(ensureBenchDb({log: ctx.log}).dbPath, path.join(profiles, 'ops', 'state.db'));
	const owners = [
		main.owner,
		hold(path.join(profiles, 'work', 'state.db')),
		hold(path.join(profiles, 'ops', 'state.db')),
	];
	return {root: main.dir, owners, sessions: {default: main.sessionId, work: work.sessionId}};
}

/** The TUI's node process under the pty, once its first full frame is drawn (every profile's header when `every`). */
async function started(tty: ChildProcess, every: boolean): Promise<number> {
	let out = '';
	tty.stdout!.on('data', (chunk: Buffer) => {
		out = (out + chunk.toString().replaceAll(ANSI, '')).slice(-64 * 1024);
	});
	const deadline = Date.now() + 120_000;
	const ready = () => out.includes('READ-ONLY') && /\d+ sessions ·/.test(out) && (!every || /3 profiles/.test(out));
	while (!ready() && Date.now() < deadline) {
		await sleep(50);
	}

	const pid = tree(tty.pid!).find(p => {
		try {
			return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('dist/hfx.js');
		} catch {
			return false;
		}
	});
	if (!ready() || !pid) {
		throw new Error(`no first frame within 120 s; output so far: ${out.slice(-400)}`);
	}

	return pid;
}

/**
 * One follower's CPU share while the writer commits into `profile`: started, settled, then 5 s of writes before the
 * window.
 */
async function followShare(
	ctx: BenchContext,
	root: Root,
	profile: 'default' | 'work',
	every: boolean,
): Promise<number> {
	const hfx = path.join(ctx.root, 'dist/hfx.js');
	const tty = inPty(`${process.execPath} ${hfx} --home ${root.root}${every ? '' : ` --profile ${profile}`}`);
	try {
		const pid = await started(tty, every);
		await sleep(3000);
		const db =
			profile === 'default' ? path.join(root.root, 'state.db') : path.join(root.root, 'profiles', profile, 'state.db');
		const writer = spawn(
			process.execPath,
			[
				path.join(ctx.root, 'dist-bench/tui-writer.js'),
				db,
				root.sessions[profile],
				String(RATE),
				String(WINDOW_MS / 1000 + 10),
			],
			{stdio: 'ignore'},
		);
		const done = new Promise<void>(resolve => writer.once('exit', () => resolve()));
		try {
			await sleep(5000);
			return await cpuShare(pid, WINDOW_MS);
		} finally {
			writer.kill('SIGTERM');
			await done;
		}
	} finally {
		tty.kill('SIGTERM');
		await new Promise<void>(resolve => (tty.exitCode === null ? tty.once('exit', () => resolve()) : resolve()));
	}
}

/** One case: both followers in interleaved rounds (the order alternates), the ratio of their medians. */
async function measureCase(
	ctx: BenchContext,
	root: Root,
	profile: 'default' | 'work',
): Promise<{one: number[]; every: number[]}> {
	const one: number[] = [];
	const every: number[] = [];
	for (let round = 0; round < ROUNDS; round++) {
		for (const all of round % 2 === 0 ? [false, true] : [true, false]) {
			const share = await followShare(ctx, root, profile, all);
			(all ? every : one).push(share);
			ctx.log(
				`  writes ` +
					`in ${profile}, ${all ? 'every profile' : `--profile ${profile}`}: ${(share * 100).toFixed(1)} ` +
					`% of one core`,
			);
		}
	}

	return {one, every};
}

const pct = (values: readonly number[]) => values.map(v => (v * 100).toFixed(1)).join('/');

export const tuiProfilesSection: Section = {
	id: 'tui-profiles',
	title:
		`the live TUI following every profile of a root (3 × the 1M-message ` +
		`store), a writer at ${RATE} commits/s in one`,
	async run(ctx: BenchContext): Promise<SectionResult> {
		const rows: Row[] = [];
		const notes: string[] = [];
		const root = makeRoot(ctx);
		try {
			for (const [profile, focus] of [
				['default', 'the focused profile'],
				['work', 'a profile the panes do not show'],
			] as const) {
				const {one, every} = await measureCase(ctx, root, profile);
				const ratio = median(every) / median(one);
				rows.push({
					measurement:
						`CPU following 3 profiles / following one, writes in ${focus} ` +
						`(${profile}): ${(median(every) * 100).toFixed(1)} % ` +
						`/ ${(median(one) * 100).toFixed(1)} % of one core (medians ` +
						`of ${ROUNDS}, ${WINDOW_MS / 1000} s each)`,
					ratio,
					target: `≤ ${TARGET_RATIO}×`,
					result: ratio <= TARGET_RATIO ? 'PASS' : 'FAIL',
				});
				notes.push(
					`Writes in ${profile}: every profile ${pct(every)} %, ` +
						`--profile ${profile} ${pct(one)} % of one core, round by round.`,
				);
			}
		} finally {
			for (const owner of root.owners) {
				owner.close();
			}

			fs.rmSync(root.root, {recursive: true, force: true});
		}

		return {rows, notes};
	},
};
