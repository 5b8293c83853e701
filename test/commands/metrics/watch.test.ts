/**
 * `hfx watch`: headless (neither Ink nor React is loaded, in the module graph or in the bundle),
 * following a store a second process writes: events as JSON lines (rollback risk raised, orphan
 * appeared, rotation, risk cleared), the textfile rewritten with the new numbers (promtool checks it in
 * the fleet tier), a clean exit on SIGTERM and SIGINT, and nothing created beside the store.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {evidenceState, hfx} from '../../helpers/cli.js';
import {parseExposition, sampleOf} from '../../helpers/prometheus.js';
import {WatchProcess} from '../../helpers/watch-process.js';
import {ROOT, WriterProcess} from '../../helpers/writer.js';
import {T0} from '../../fixtures/scenarios.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-watch-'));
const FIXTURE = path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db');
const TG = 'agent:main:telegram:dm:777001';
const running: Array<WatchProcess | WriterProcess> = [];
afterEach(async () => {
	for (const p of running.splice(0)) {
		await (p instanceof WatchProcess ? p.stop('SIGKILL') : p.kill());
	}
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

/**
 * A preload that records every WebAssembly compilation (Ink's layout engine, yoga, is WebAssembly) and can fake a
 * terminal.
 */
function wasmHook(): string {
	const hook = path.join(dir, 'wasm-hook.cjs');
	fs.writeFileSync(
		hook,
		[
			'const fs = require("fs"); const seen = [];',
			'for (const name of ["compile", "instantiate", "compileStreaming", ' +
				'"instantiateStreaming"]) { const orig = WebAssembly[name]; ' +
				'WebAssembly[name] = function (...a) { seen.push(name); return ' +
				'orig.apply(this, a); }; }',
			'WebAssembly.Module = new Proxy(WebAssembly.Module, {construct(t, a) { ' +
				'seen.push("Module"); return new t(...a); }});',
			'if (process.env.FAKE_TTY) { process.stdout.isTTY = true; ' +
				'process.stdin.isTTY = true; process.stdin.setRawMode = () => ' +
				'process.stdin; }',
			'process.on("exit", () => fs.writeFileSync(process.env.WASM_LOG, JSON.stringify(seen)));',
		].join('\n'),
	);
	return hook;
}

/** An ESM loader hook that logs every module URL the process resolves. */
function resolveHook(): string {
	fs.writeFileSync(
		path.join(dir, 'resolve-hooks.mjs'),
		'import fs from "node:fs";\nexport async function resolve(s, c, next) { ' +
			'const r = await next(s, c); fs.appendFileSync(process.env.RESOLVE_LOG, ' +
			'r.url + "\\n"); return r; }\n',
	);
	const register = path.join(dir, 'resolve-register.mjs');
	fs.writeFileSync(
		register,
		'import {register} from "node:module";\nregister("./resolve-hooks.mjs", import.meta.url);\n',
	);
	return register;
}

describe('hfx watch', () => {
	it(
		'loads neither Ink nor React: not in the module graph of dist/cli/main.js, ' +
			"and the bundle never starts Ink's layout engine",
		async () => {
			const fixtureBefore = evidenceState(path.dirname(FIXTURE));
			const log = path.join(dir, 'resolved.log');
			const register = resolveHook();
			// Until its first readings are printed (every module the watch uses is loaded by then), then SIGINT.
			const graph = new WatchProcess(['--db', FIXTURE, '--interval', '0.2s', '--json-lines'], {
				nodeArgs: ['--import', register],
				env: {RESOLVE_LOG: log},
				entry: path.join(ROOT, 'dist/cli/main.js'),
			});
			running.push(graph);
			await graph.waitFor(events => events.some(e => e.event === 'rollback-risk-raised'), 20_000, 'first reading');
			await new Promise(resolve => setTimeout(resolve, 500));
			expect((await graph.stop('SIGINT')).code).toBe(0);
			expect(graph.stderr).toBe('');
			const urls = fs.readFileSync(log, 'utf8').split('\n');
			expect(urls.some(u => u.endsWith('/dist/commands/metrics/watch.js'))).toBe(true);
			expect(urls.some(u => u.endsWith('/dist/live/live.js'))).toBe(true);
			expect(
				urls.filter(u => /\/node_modules\/(ink|react|react-reconciler|@inkjs|yoga-layout)\/|\/dist\/ui\//.test(u)),
			).toEqual([]);
			// The same hook sees Ink when Ink is loaded (the check can fail).
			fs.rmSync(log);
			spawnSync(process.execPath, ['--import', register, '--input-type=module', '-e', 'await import("ink")'], {
				cwd: ROOT,
				env: {...process.env, RESOLVE_LOG: log},
				timeout: 10_000,
			});
			expect(fs.readFileSync(log, 'utf8')).toMatch(/\/node_modules\/ink\//);

			const hook = wasmHook();
			const watchLog = path.join(dir, 'wasm-watch.json');
			const watch = new WatchProcess(['--db', FIXTURE, '--interval', '0.2s', '--json-lines'], {
				nodeArgs: ['--require', hook],
				env: {WASM_LOG: watchLog},
			});
			running.push(watch);
			await watch.waitFor(events => events.some(e => e.event === 'rollback-risk-raised'), 10_000, 'first reading');
			expect((await watch.stop('SIGINT')).code).toBe(0);
			expect(JSON.parse(fs.readFileSync(watchLog, 'utf8'))).toEqual([]);
			expect(evidenceState(path.dirname(FIXTURE))).toEqual(fixtureBefore);
			// The TUI in the same bundle (a terminal faked) does start it: the check can fail.
			const tuiLog = path.join(dir, 'wasm-tui.json');
			spawnSync(process.execPath, ['--require', hook, path.join(ROOT, 'dist/hfx.js'), '--db', FIXTURE], {
				env: {...process.env, WASM_LOG: tuiLog, FAKE_TTY: '1'},
				timeout: 10_000,
				stdio: 'ignore',
			});
			expect(JSON.parse(fs.readFileSync(tuiLog, 'utf8'))).not.toEqual([]);
		},
	);

	it(
		'follows a store another process writes: risk raised, orphan appeared, ' +
			'rotation, risk cleared; the textfile follows; SIGTERM exits 0',
		async () => {
			const home = path.join(dir, 'live');
			fs.mkdirSync(home);
			const db = path.join(home, 'state.db');
			const w = new WriterProcess(db);
			running.push(w);
			await w.started();
			const zombie = await w.create({
				source: 'telegram',
				userId: 'u-teknium',
				sessionKey: TG,
				chatId: '777001',
				chatType: 'dm',
				startedAt: T0,
			});
			await w.send({op: 'conversation', id: zombie, count: 30, from: T0 + 10, to: T0 + 900});
			await w.send({op: 'routing', key: TG, id: zombie, at: T0 + 900});
			const out = path.join(dir, 'live-out');
			fs.mkdirSync(out);
			const file = path.join(out, 'hfx.prom');
			const watch = new WatchProcess(['--home', home, '--interval', '0.2s', '--json-lines', '--textfile', file]);
			running.push(watch);
			await watch.waitFor(() => fs.existsSync(file), 10_000, 'textfile');
			expect(sampleOf(parseExposition(fs.readFileSync(file, 'utf8')), 'hfx_rollback_risk_chats')).toBe(0);

			// The incident: the conversation goes on in a row without routing identity.
			const orphan = await w.create({source: 'telegram', startedAt: T0 + 960});
			await w.send({op: 'conversation', id: orphan, count: 40, from: T0 + 970, to: T0 + 5000});
			const [raised, appeared] = await watch.waitForEach(
				[{event: 'rollback-risk-raised'}, {event: 'orphan-appeared', orphanId: orphan}],
				10_000,
			);
			expect(raised).toMatchObject({profile: 'default', sessionKey: TG, resumes: zombie, newestIn: orphan});
			expect(appeared).toMatchObject({verdict: 'adoptable'});
			// Not a later reading's: it came with the risk.
			expect(appeared!.at).toBe(raised!.at);
			await watch.waitFor(
				() => sampleOf(parseExposition(fs.readFileSync(file, 'utf8')), 'hfx_rollback_risk_chats') === 1,
				5000,
				'textfile with the risk',
			);
			const text = fs.readFileSync(file, 'utf8');
			expect(sampleOf(parseExposition(text), 'hfx_orphans', {verdict: 'adoptable'})).toBe(1);

			// The owner gives the row its identity and routes the chat to it (what an adoption writes).
			await w.send({
				op: 'exec',
				sql:
					`UPDATE sessions SET session_key = '${TG}', user_id = 'u-teknium', ` +
					`chat_id = '777001', chat_type = 'dm' WHERE id = '${orphan}'`,
			});
			await w.send({op: 'routing', key: TG, id: orphan, at: T0 + 5000});
			// The key given (one commit) and the chat routed to it (the next) may be read in one reading or in two.
			await watch.waitForEach(
				[
					{event: 'orphan-gone', orphanId: orphan},
					{event: 'rotation', sessionKey: TG, from: zombie, to: orphan},
					{event: 'rollback-risk-cleared', sessionKey: TG},
				],
				10_000,
			);
			await watch.waitFor(
				() => sampleOf(parseExposition(fs.readFileSync(file, 'utf8')), 'hfx_rollback_risk_chats') === 0,
				5000,
				'textfile without the risk',
			);

			const stopped = await watch.stop('SIGTERM');
			expect(stopped).toMatchObject({code: 0, signal: null});
			expect(stopped.ms).toBeLessThan(3000);
			expect(watch.stderr).toBe('');
			expect(fs.readdirSync(home).sort()).toEqual(['state.db', 'state.db-shm', 'state.db-wal']);
			expect(fs.readdirSync(out)).toEqual(['hfx.prom']);
		},
	);

	it(
		'says a store it cannot read, as an event and as hfx_store_up 0, and ' +
			'keeps going; follows a profile created meanwhile; a bad --interval is refused',
		async () => {
			const home = path.join(dir, 'broken');
			fs.mkdirSync(home);
			fs.writeFileSync(path.join(home, 'state.db'), '');
			const out = path.join(dir, 'broken-out');
			fs.mkdirSync(out);
			const file = path.join(out, 'hfx.prom');
			const watch = new WatchProcess(['--home', home, '--interval', '0.2s', '--json-lines', '--textfile', file]);
			running.push(watch);
			await watch.waitForEach([{event: 'store-down', profile: 'default', reason: 'empty-file'}], 10_000);
			await watch.waitFor(() => fs.existsSync(file), 5000, 'textfile');
			expect(sampleOf(parseExposition(fs.readFileSync(file, 'utf8')), 'hfx_store_up', {reason: 'empty-file'})).toBe(0);
			// Once: the next readings fail the same way and say nothing new.
			await new Promise(resolve => setTimeout(resolve, 800));
			expect(watch.events().filter(e => e.event === 'store-down')).toHaveLength(1);
			expect(watch.child.exitCode).toBe(null);
			// A profile created under the root while the watch runs is followed from then on.
			fs.mkdirSync(path.join(home, 'profiles', 'work'), {recursive: true});
			fs.copyFileSync(FIXTURE, path.join(home, 'profiles', 'work', 'state.db'));
			await watch.waitFor(
				events => events.some(e => e.event === 'rollback-risk-raised' && e.profile === 'work'),
				10_000,
				"the new profile's risks",
			);
			await watch.waitFor(
				() =>
					parseExposition(fs.readFileSync(file, 'utf8')).some(
						s => s.name === 'hfx_store_up' && s.labels.profile === 'work' && s.value === 1,
					),
				5000,
				'the new profile in the textfile',
			);
			expect((await watch.stop('SIGTERM')).code).toBe(0);

			for (const bad of ['0', 'soon']) {
				const r = hfx(['watch', '--home', home, '--interval', bad]);
				expect(r.code).toBe(2);
				expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^hfx: --interval: .*Next: /)]);
			}
		},
	);

	it(
		'a profile removed stops being reported (store-removed, its series leave ' +
			"the textfile); the scan time is each reading's; a textfile folder " +
			'removed is one line on stderr and the file comes back with it',
		async () => {
			const home = path.join(dir, 'fleet');
			fs.mkdirSync(path.join(home, 'profiles', 'work'), {recursive: true});
			fs.mkdirSync(path.join(home, 'profiles', 'gone'), {recursive: true});
			fs.copyFileSync(FIXTURE, path.join(home, 'state.db'));
			fs.copyFileSync(FIXTURE, path.join(home, 'profiles', 'work', 'state.db'));
			fs.writeFileSync(path.join(home, 'profiles', 'gone', 'state.db'), '');
			const out = path.join(dir, 'fleet-out');
			fs.mkdirSync(out);
			const file = path.join(out, 'hfx.prom');
			const samples = () => parseExposition(fs.readFileSync(file, 'utf8'));
			const watch = new WatchProcess(['--home', home, '--interval', '0.2s', '--json-lines', '--textfile', file]);
			running.push(watch);
			await watch.waitFor(
				events => events.some(e => e.event === 'store-down' && e.profile === 'gone'),
				10_000,
				'store-down of gone',
			);
			await watch.waitFor(
				() => fs.existsSync(file) && samples().some(s => s.name === 'hfx_store_up' && s.labels.profile === 'gone'),
				5000,
				'gone in the textfile',
			);
			expect(sampleOf(samples(), 'hfx_store_up', {profile: 'gone'})).toBe(0);

			// A quiet store: the scan time still follows the readings (it lagged up to 5 minutes).
			// Waited for, not read after a fixed 1.5 s: a stall of the watch under load is no lag of the scan time. The bug
			// lagged minutes; 5 s of freshness still catches it.
			const scanAt = () => sampleOf(samples(), 'hfx_last_scan_timestamp_seconds', {profile: 'work'});
			const first = scanAt();
			await watch.waitFor(() => scanAt() > first + 0.5, 10_000, 'the scan time moving on');
			expect(Date.now() / 1000 - scanAt()).toBeLessThan(5);

			// The profile removed with its folder: said once, and no series of it is left to alert on.
			fs.rmSync(path.join(home, 'profiles', 'gone'), {recursive: true});
			await watch.waitFor(
				events => events.some(e => e.event === 'store-removed' && e.profile === 'gone'),
				5000,
				'store-removed',
			);
			await watch.waitFor(() => !samples().some(s => s.labels.profile === 'gone'), 5000, 'the textfile without gone');
			expect(sampleOf(samples(), 'hfx_store_up', {profile: 'work'})).toBe(1);
			await new Promise(resolve => setTimeout(resolve, 600));
			expect(watch.events().filter(e => e.event === 'store-removed')).toHaveLength(1);

			// The textfile's folder removed under the quiet watch: one line naming the file, the watch goes on.
			fs.rmSync(out, {recursive: true});
			// A reading every 0.2 s, each writing the file; the budget is for a loaded CI machine (5 s once ran out).
			await watch.waitFor(() => watch.stderr.length > 0, 15_000, 'a line on stderr');
			await new Promise(resolve => setTimeout(resolve, 800));
			expect(watch.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^hfx: .*hfx\.prom: .*Next: .*goes on/)]);
			expect(watch.child.exitCode).toBe(null);
			fs.mkdirSync(out);
			await watch.waitFor(() => fs.existsSync(file), 5000, 'the textfile written again');
			await watch.waitFor(() => /written again/.test(watch.stderr), 5000, 'the line saying so');
			expect(sampleOf(samples(), 'hfx_store_up', {profile: 'default'})).toBe(1);
			expect((await watch.stop('SIGTERM')).code).toBe(0);
			expect(fs.readdirSync(out)).toEqual(['hfx.prom']);
		},
	);
});
