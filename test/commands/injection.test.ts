/**
 * Terminal injection (issue #17, class 8), on the real binary: a store whose titles, display
 * names, user and chat ids, session keys and a source hold CSI/OSC/DCS escapes, CR, LF, a bidi
 * override and a C1 CSI, in a folder whose name holds some too; a holder process whose command
 * line does; an archive whose member names do. Every command's stdout and stderr carry no control
 * byte but the line feeds between lines (NO_COLOR: hfx adds none of its own), show the data escaped,
 * refuse in exactly one line, and under --json give back the exact strings. Nothing is written
 * beside the store.
 */
import {type ChildProcess, spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type CliRun, evidenceState, hfx, hfxJson} from '../helpers/cli.js';
import {craftZip} from '../backup/helpers.js';
import {EVIL, type HostileStore, buildHostileStore} from '../helpers/hostile-store.js';

/** A byte a terminal acts on, or a character that hides or reorders text: only \n (between lines) may appear. */
const RAW = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u2028\u2029\u200B\u200E\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/u;

/**
 * How EVIL's hostile parts look once escaped (ours: \x1b; where a message quotes a string with JSON.stringify: \u001b).
 */
const SHOWN = [
	/\\(x1b|u001b)\[2J/,
	/\\(x1b|u001b)\]0;pwned\\(x07|u0007)/,
	/\\r\\n/,
	/\\u202e/,
	/\\x9b31m/,
	/\\(x1b|u001b)P\+q/,
];

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-injection-'));
/** The Hermes root: its folder name carries an OSC title and a bidi override too. */
const home = path.join(tmp, 'home\u001B]0;x\u0007\u202E');
let store: HostileStore;
let before: ReturnType<typeof evidenceState>;

beforeAll(() => {
	fs.mkdirSync(home);
	store = buildHostileStore(home);
	before = evidenceState(home);
});
afterAll(() => fs.rmSync(tmp, {recursive: true, force: true}));

function expectClean(r: CliRun, what: string): void {
	expect(RAW.exec(r.stdout)?.[0], `${what}: stdout ${JSON.stringify(r.stdout.slice(0, 400))}`).toBeUndefined();
	expect(RAW.exec(r.stderr)?.[0], `${what}: stderr ${JSON.stringify(r.stderr)}`).toBeUndefined();
}

function expectShown(text: string, what: string, pieces = SHOWN.length): void {
	for (const piece of SHOWN.slice(0, pieces)) {
		expect(text, `${what} shows ${piece}`).toMatch(piece);
	}
}

function expectOneLineRefusal(r: CliRun, what: string): void {
	expectClean(r, what);
	expect(r.code, what).toBe(2);
	expect(r.stderr.endsWith('\n'), what).toBe(true);
	expect(r.stderr.slice(0, -1).split('\n'), `${what}: ${JSON.stringify(r.stderr)}`).toHaveLength(1);
}

describe('hostile strings from the store reach the terminal escaped', () => {
	const db = () => ['--db', store.dbPath];
	it.each([
		// [what, argv, exit code, how many of SHOWN's pieces fit (a table cuts its cells)]
		['scan', () => ['scan', ...db()], 1, 6],
		['sessions', () => ['sessions', '--all', ...db()], 0, 1],
		['lineage', () => ['lineage', store.zombie, ...db()], 0, 6],
		['routing', () => ['routing', ...db()], 1, 6],
		['routing KEY', () => ['routing', store.key, ...db()], 1, 6],
		['repair (dry run)', () => ['repair', ...db()], 1, 6],
		['the text report of a home', () => ['scan', '--home', home], 1, 6],
	] as const)('%s', (what, args, code, pieces) => {
		const r = hfx(args());
		expectClean(r, what);
		expect([r.code, r.stderr], what).toEqual([code, '']);
		expectShown(r.stdout, what, pieces);
	});

	it('--json keeps every string exact (and the document has no raw C1 or bidi character)', () => {
		const sessions = hfxJson(['sessions', '--all', ...db()]);
		const titles = sessions.json.sessions as Array<{
			title: string;
			displayName: string | null;
			userId: string | null;
			sessionKey: string | null;
			source: string;
		}>;
		expect(titles.map(s => s.title).sort()).toEqual([EVIL, `orphan ${EVIL}`, `zombie ${EVIL}`]);
		expect(titles.find(s => s.sessionKey !== null)).toMatchObject({
			sessionKey: store.key,
			displayName: `Mallory ${EVIL}`,
			userId: `u-${EVIL}`,
		});
		expect(titles.map(s => s.source)).toContain(`cli${EVIL}`);
		const scan = hfxJson(['scan', ...db()]);
		expect(scan.json.routing.map((r: {sessionKey: string}) => r.sessionKey)).toEqual([store.key]);
		expect(scan.json.database.path).toBe(store.dbPath);
		const raw = hfx(['routing', store.key, ...db(), '--json']);
		expectClean(raw, 'routing --json');
		expect(JSON.stringify(JSON.parse(raw.stdout))).toContain(JSON.stringify(store.key).slice(1, -1));
	});

	it('a refusal naming a hostile id or key is one line', () => {
		expectOneLineRefusal(hfx(['lineage', `x${EVIL}`, ...db()]), 'lineage with a hostile id');
		expectOneLineRefusal(hfx(['routing', `agent:${EVIL}`, ...db()]), 'routing with an unknown hostile key');
		expectShown(hfx(['lineage', `x${EVIL}`, ...db()]).stderr, 'lineage refusal');
	});

	it('nothing was written beside the store', () => {
		expect(evidenceState(home)).toEqual(before);
	});
});

describe('hostile file names and command lines', () => {
	it('a --db path with a newline, ESC, OSC, C1 and a bidi override is refused in one line, escaped', () => {
		const bad = path.join(tmp, `no\n${EVIL}where`, 'state.db');
		const r = hfx(['scan', '--db', bad]);
		expectOneLineRefusal(r, 'scan --db hostile');
		expect(r.stderr).toContain(`no\\n\\x1b[2J`);
		const json = hfxJson(['scan', '--db', bad]);
		expect(json.json.error?.file ?? json.json.database?.path).toBe(bad);
		for (const command of ['sessions', 'files', 'repair', 'routing']) {
			expectOneLineRefusal(hfx([command, '--db', bad]), `${command} --db hostile`);
		}
	});

	it('an unknown command or a bad flag value that is hostile is one usage line', () => {
		const r = hfx([`x${EVIL}`]);
		expectOneLineRefusal(r, 'unknown hostile command');
		expectOneLineRefusal(hfx(['sessions', '--limit', `5${EVIL}`, '--db', store.dbPath]), 'hostile --limit');
	});

	it('files: a holder whose command line holds escapes and a newline is shown escaped; --json keeps it', async () => {
		let holder: ChildProcess | undefined;
		try {
			// A real process with the store open, its argv[0] and last argument hostile.
			holder = spawn(
				process.execPath,
				[
					'-e',
					'require("fs").openSync(process.argv[1], "r"); setTimeout(() => {}, 30000); console.log("open")',
					store.dbPath,
					EVIL,
				],
				{argv0: `evil${EVIL}`, stdio: ['ignore', 'pipe', 'inherit']},
			);
			await new Promise<void>((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error('holder did not start')), 10_000);
				holder!.stdout!.once('data', () => {
					clearTimeout(timer);
					resolve();
				});
			});
			const r = hfx(['files', '--db', store.dbPath]);
			expectClean(r, 'files');
			expect(r.stdout).toContain(`pid ${holder.pid}`);
			expectShown(r.stdout, 'files');
			const json = hfxJson(['files', '--db', store.dbPath]);
			const mine = (json.json.holders.holders as Array<{pid: number; cmdline: string}>).find(
				h => h.pid === holder!.pid,
			);
			expect(mine?.cmdline).toContain(EVIL);
		} finally {
			holder?.kill('SIGKILL');
		}
	});

	it('backup into a hostile folder, the listing and verify show its name escaped', () => {
		const out = path.join(tmp, `backups\n${EVIL}`);
		fs.mkdirSync(out);
		const b = hfx(['backup', '--home', home, '-o', out]);
		expectClean(b, 'backup');
		expect(b.code).toBe(0);
		const list = hfx(['backups', '--home', home, '-o', out]);
		expectClean(list, 'backups');
		expect(list.code).toBe(0);
		expectShown(list.stdout, 'backups');
		const archive = fs.readdirSync(out).find(n => n.endsWith('.zip'))!;
		const v = hfx(['verify', path.join(out, archive)]);
		expectClean(v, 'verify');
		expect(v.code).toBe(0);
		const listed = hfxJson(['backups', '--home', home, '-o', out]);
		expect(listed.json.dirs).toEqual([out]);
		// The commands that judge or use that backup print the folder's name too.
		for (const [what, args] of [
			['restore --drill', ['restore', '--drill', path.join(out, archive)]],
			['gate', ['gate', '--home', home, '-o', out, '--max-age', '1d']],
			['doctor', ['doctor', '--home', home, '-o', out]],
		] as const) {
			const r = hfx([...args]);
			expectClean(r, what);
			expect(r.code, `${what}: ${r.stderr}`).not.toBeNull();
			expect(r.stderr, what).not.toContain('internal error');
		}
	});

	it(
		'verify: archive member names with escapes, a newline, C1 and bidi are ' + 'reported escaped, in one refusal line',
		() => {
			const zip = path.join(tmp, 'members.zip');
			fs.writeFileSync(
				zip,
				craftZip([
					{name: `state.db${EVIL}`, data: Buffer.from('x')},
					{name: `../${EVIL}`, data: Buffer.from('y')},
				]),
			);
			const r = hfx(['verify', zip]);
			expectClean(r, 'verify hostile members');
			expect(r.code).not.toBe(0);
			expectShown(r.stdout, 'verify');
			expectShown(r.stderr, 'verify');
			const refusals = r.stderr.split('\n').filter(Boolean);
			expect(refusals.length).toBeLessThanOrEqual(1);
		},
	);
});
