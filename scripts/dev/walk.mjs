/**
 * A deterministic walk of `hfx repair` (issue #30 point 4): follows one run of the unbundled build (dist/cli/main.js,
 * what `node --cpu-prof dist/cli/main.js` runs) as data, every call that crosses from one room to another and its
 * return,
 * and counts its way. No sampling: each module of dist/ is wrapped at load time (walk-hooks.mjs, walk-runtime.mjs),
 * so the same code on the same input gives the same numbers on every run.
 *
 *   export PATH=$PWD/node_modules/.bin:$PATH                   # the project's Node 24
 *   npm run build && node scripts/dev/walk.mjs                 # the four repairs on the incident fixture, 3 runs each
 *   node scripts/dev/walk.mjs --only dry,undo --runs 1 --trace # the stays of one, in order
 *   node scripts/dev/walk.mjs --depth 3                        # also only the crossings up to 3 rooms deep
 *
 * A room is the folder of a module under dist/ (repair, store/open, forensics/lineage...; a root file is `cli` or
 * `ground`). From the sequence of rooms the code runs in: stays (maximal runs in one room), distinct rooms, climbs
 * (a call into a higher floor, or into a higher room of the same folder: test/build/floors.test.ts's FLOORS and ROOMS;
 * split into calls of an imported function and calls of a function handed down, such as a log or a read's body) and
 * returns to a room already left. Each scenario runs on a fresh copy of test/fixtures/hermes-v21-incident, with its
 * own HOME and TMPDIR; --undo first applies the repair unwalked.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const ROOT = path.resolve(fileURLToPath(import.meta.url), '../../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db');
const HOOKS = path.join(ROOT, 'scripts/dev/walk-hooks.mjs');

/**
 * test/build/floors.test.ts: the floors, and the rooms inside backup/, forensics/, store/ and report/ each imports.
 * A copy (this tool runs on dist/, outside the suite): a floor or room order added there must be added here too.
 */
const FLOORS = {cli: 8, commands: 7, ui: 7, report: 6, repair: 5, backup: 5, simulator: 5, live: 4, store: 3};
Object.assign(FLOORS, {forensics: 2, text: 1, ground: 1});
const BELOW = {
	backup: {
		ops: 'restore verify create check archive',
		restore: 'verify create check archive',
		verify: 'check archive',
		create: 'check archive',
	},
	forensics: {
		timeline: 'analysis places signatures rollbacks routing lineage',
		search: 'analysis places signatures rollbacks routing lineage',
		analysis: 'places signatures rollbacks routing lineage',
		places: 'signatures routing lineage',
		signatures: 'routing lineage',
		rollbacks: 'routing lineage',
		routing: 'lineage',
	},
	store: {search: 'read places open files wal', read: 'places open files wal', open: 'files wal', files: 'wal'},
	report: {backups: 'analysis files', repair: 'analysis files', analysis: 'files'},
};

export const SCENARIOS = {
	dry: {args: []},
	apply: {args: ['--apply', '--yes']},
	donor: {args: ['--apply', '--only', 'f20eabbd', '--donor', '3fb83ac3', '--yes']},
	undo: {args: ['--undo', '<entry>', '--yes'], before: ['--apply', '--yes']},
};

/** Whether a call from room `from` into room `to` goes up. */
export function climbs(from, to) {
	const [uf, rf] = from.split('/');
	const [ut, rt] = to.split('/');
	if (FLOORS[ut] !== FLOORS[uf]) {
		return FLOORS[ut] > FLOORS[uf];
	}

	// Only the folders whose rooms the floors test orders (BELOW) have a way down inside them; repair/'s root (apply,
	// undo) calls its rooms (plan/, write/) from above.
	if (uf !== ut || rf === rt || rt === undefined || BELOW[ut] === undefined) {
		return false;
	}

	return rf === undefined || (BELOW[ut]?.[rt] ?? '').split(' ').includes(rf);
}

/**
 * The counts of one walk: its log of crossings (walk-runtime.mjs) made into rooms and stays. With `depth`, only the
 * crossings at most that many rooms deep count (1: the command's own room; 3: what the command and what it calls call);
 * a deeper one stays in the room that made it.
 */
export function countWalk(events, depth = Number.POSITIVE_INFINITY) {
	const rooms = ['cli'];
	let imported = 0;
	let handed = 0;
	let d = 0;
	for (const [kind, rawFrom, to, name] of events) {
		const from = rawFrom === '(entry)' ? 'cli' : rawFrom;
		d += kind === 'call' ? 1 : 0;
		if (d <= depth) {
			if (kind === 'call' && climbs(from, to)) {
				name.includes('(handed)') ? handed++ : imported++;
			}

			rooms.push(to === '(entry)' ? 'cli' : to);
		}

		d -= kind === 'return' ? 1 : 0;
	}

	const stays = rooms.filter((r, i) => i === 0 || r !== rooms[i - 1]);
	const returns = stays.filter((r, i) => stays.indexOf(r) < i).length;
	return {
		stays: stays.length,
		rooms: new Set(stays).size,
		climbs: imported + handed,
		climbsByImport: imported,
		climbsByCallback: handed,
		returns,
		crossings: events.filter(e => e[0] === 'call').length,
		trace: stays,
	};
}

function hfx(args, env, walkOut) {
	const extra = walkOut ? ['--import', HOOKS] : [];
	try {
		return execFileSync(process.execPath, [...extra, path.join(ROOT, 'dist/cli/main.js'), 'repair', ...args], {
			env: {...env, ...(walkOut ? {HFX_WALK_OUT: walkOut} : {})},
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'pipe'],
		});
	} catch (error) {
		return error.stdout ?? '';
	}
}

/** One walked run of a scenario, on a fresh copy of the fixture: its log of crossings. */
export function walkOnce(name) {
	const scenario = SCENARIOS[name];
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-walk-'));
	try {
		for (const sub of ['store', 'home', 'tmp']) {
			fs.mkdirSync(path.join(dir, sub));
		}

		const db = path.join(dir, 'store/state.db');
		fs.copyFileSync(FIXTURE, db);
		const env = {PATH: process.env.PATH, HOME: path.join(dir, 'home'), TMPDIR: path.join(dir, 'tmp'), LANG: 'C'};
		let args = scenario.args;
		if (scenario.before) {
			const entry = /--undo (\d+)/.exec(hfx(['--db', db, ...scenario.before], env))?.[1] ?? '?';
			args = args.map(a => (a === '<entry>' ? entry : a));
		}

		const out = path.join(dir, 'walk.json');
		hfx(['--db', db, ...args], env, out);
		if (!fs.existsSync(out)) {
			throw new Error(`hfx repair ${args.join(' ')} left no walk: run it alone to see why (npm run build first?)`);
		}

		return JSON.parse(fs.readFileSync(out, 'utf8'));
	} finally {
		fs.rmSync(dir, {recursive: true, force: true});
	}
}

function main(argv) {
	const value = flag => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
	const names = value('--only')?.split(',') ?? Object.keys(SCENARIOS);
	const runs = Number(value('--runs') ?? 3);
	const depths = [Number.POSITIVE_INFINITY, ...(value('--depth')?.split(',').map(Number) ?? [])];
	let same = true;
	for (const name of names) {
		const logs = Array.from({length: runs}, () => walkOnce(name));
		for (const depth of depths) {
			const walks = logs.map(log => countWalk(log, depth));
			const {trace, ...counts} = walks[0];
			const identical = walks.every(w => JSON.stringify(w) === JSON.stringify(walks[0]));
			same &&= identical;
			const line = Object.entries(counts).map(([k, v]) => `${k} ${v}`);
			const label = `${name}${depth === Number.POSITIVE_INFINITY ? '' : ` (depth ${depth})`}`;
			console.log(`${label.padEnd(16)} ${line.join(' · ')} · ${runs} runs ${identical ? 'identical' : 'DIFFER'}`);
			if (argv.includes('--trace')) {
				console.log(`  ${trace.join(' > ')}`);
			}
		}
	}

	process.exitCode = same ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	if (Number(process.versions.node.split('.')[0]) < 22) {
		console.error(
			`walk: hfx needs Node 22.16 or newer, this is ${process.version}: export PATH=$PWD/node_modules/.bin:$PATH`,
		);
		process.exit(2);
	}

	main(process.argv.slice(2));
}
