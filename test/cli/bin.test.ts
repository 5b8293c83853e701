/**
 * The bin (source/cli/bin.ts, dist/hfx.js): the Node it accepts, where its compile cache goes, and that
 * the cache is an optimisation only: a cache folder that cannot be made or written never fails a
 * command, and the store is never where it writes.
 */
import {execFileSync, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {MINIMUM_NODE, compileCacheDir, makeCacheDir, nodeIsSupported} from '../../source/cli/bin.js';
import {ROOT} from '../helpers/writer.js';

const BIN = path.join(ROOT, 'dist/hfx.js');
const scratch: string[] = [];
const tempDir = () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-bin-'));
	scratch.push(dir);
	return dir;
};

afterEach(() => {
	for (const dir of scratch.splice(0)) {
		fs.rmSync(dir, {recursive: true, force: true});
	}
});

const version = (env: NodeJS.ProcessEnv) =>
	spawnSync(process.execPath, [BIN, '--version'], {encoding: 'utf8', env: {...process.env, ...env}, timeout: 20_000});

/** Every file under `dir` (relative paths), or [] when it does not exist. */
const filesUnder = (dir: string): string[] =>
	fs.existsSync(dir)
		? fs
				.readdirSync(dir, {recursive: true, withFileTypes: true})
				.filter(e => e.isFile())
				.map(e => e.name)
		: [];

describe('the Node the bin accepts', () => {
	it("is package.json's engines.node, and the check follows it", () => {
		const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {engines: {node: string}};
		expect(pkg.engines.node).toBe(`>=${MINIMUM_NODE.join('.')}.0`);
		expect(['22.16.0', '22.23.3', '24.21.0', '26.0.0'].map(nodeIsSupported)).toEqual([true, true, true, true]);
		expect(['20.20.2', '22.13.0', '22.15.1', '18.20.8', '21.99.0'].map(nodeIsSupported)).toEqual([
			false,
			false,
			false,
			false,
			false,
		]);
	});

	it('runs on this Node', () => {
		const run = version({});
		expect(run.status).toBe(0);
		expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
	});

	// The system Node of the machines we build on is 20: the bin must refuse it in one line, not crash.
	const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find(p => {
		try {
			return !nodeIsSupported(execFileSync(p, ['-p', 'process.versions.node'], {encoding: 'utf8'}).trim());
		} catch {
			return false;
		}
	});
	it.runIf(oldNode)('refuses an older Node in one line naming it and the next step, exit 2', () => {
		const run = spawnSync(oldNode!, [BIN, 'scan', '--db', '/nonexistent/state.db'], {encoding: 'utf8'});
		expect(run.status).toBe(2);
		expect(run.stdout).toBe('');
		expect(run.stderr.trim().split('\n')).toHaveLength(1);
		expect(run.stderr).toContain(`hfx: needs Node.js ${MINIMUM_NODE.join('.')} or newer; ${oldNode} is v`);
		expect(run.stderr).toContain('npm start');
	});
});

describe('the compile cache', () => {
	it("lives in the user's cache folder, or where NODE_COMPILE_CACHE says", () => {
		expect(compileCacheDir({}, '/home/op')).toBe('/home/op/.cache/hfx/compile-cache');
		expect(compileCacheDir({XDG_CACHE_HOME: '/var/cache/op'}, '/home/op')).toBe('/var/cache/op/hfx/compile-cache');
		// A relative XDG_CACHE_HOME is invalid by the XDG spec: ignored.
		expect(compileCacheDir({XDG_CACHE_HOME: 'cache'}, '/home/op')).toBe('/home/op/.cache/hfx/compile-cache');
		expect(compileCacheDir({NODE_COMPILE_CACHE: '/tmp/c'}, '/home/op')).toBe('/tmp/c');
	});

	it('is filled by a start, and HFX_NO_COMPILE_CACHE=1 leaves it alone', () => {
		const cache = tempDir();
		expect(version({XDG_CACHE_HOME: cache, HFX_NO_COMPILE_CACHE: '1'}).status).toBe(0);
		expect(filesUnder(path.join(cache, 'hfx'))).toEqual([]);
		expect(version({XDG_CACHE_HOME: cache}).status).toBe(0);
		expect(filesUnder(path.join(cache, 'hfx', 'compile-cache')).length).toBeGreaterThan(0);
	});

	it('makes its folder one level at a time, and says no where that cannot be done', () => {
		const base = tempDir();
		expect(makeCacheDir(path.join(base, 'a', 'b', 'c'))).toBe(true);
		expect(fs.statSync(path.join(base, 'a', 'b', 'c')).isDirectory()).toBe(true);
		fs.writeFileSync(path.join(base, 'file'), 'x');
		expect(makeCacheDir(path.join(base, 'file', 'c'))).toBe(false);
		expect(makeCacheDir(path.join(base, 'file'))).toBe(false);
		// Node's recursive mkdir loops forever here (mkdir says ENOENT under /proc/self): this must return.
		expect(makeCacheDir('/proc/self/hfx/compile-cache')).toBe(false);
	});

	it(
		'uses no cache folder that is a planted link (hfx/ or compile-cache/ to ' +
			'elsewhere): nothing is written through it',
		() => {
			const base = tempDir();
			const elsewhere = tempDir();
			fs.symlinkSync(elsewhere, path.join(base, 'hfx'));
			expect(makeCacheDir(path.join(base, 'hfx', 'compile-cache'))).toBe(false);
			const base2 = tempDir();
			fs.mkdirSync(path.join(base2, 'hfx'));
			fs.symlinkSync(elsewhere, path.join(base2, 'hfx', 'compile-cache'));
			expect(makeCacheDir(path.join(base2, 'hfx', 'compile-cache'))).toBe(false);
			expect(version({XDG_CACHE_HOME: base2}).status).toBe(0);
			expect(filesUnder(elsewhere)).toEqual([]);
		},
	);

	it('never fails or stalls a command when its folder cannot be made or written (a file in the way, /proc)', () => {
		const blocker = path.join(tempDir(), 'not-a-folder');
		fs.writeFileSync(blocker, 'x');
		for (const cacheHome of [blocker, '/proc/self']) {
			const run = version({XDG_CACHE_HOME: cacheHome});
			expect({cacheHome, status: run.status, stderr: run.stderr}).toEqual({cacheHome, status: 0, stderr: ''});
			expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
		}

		expect(fs.readFileSync(blocker, 'utf8')).toBe('x');
	});
});

// CI's Node 22 tier runs this file on Node 22 (scripts/ci/node22.sh), whose node:sqlite prints an ExperimentalWarning
// when it loads.
describe('node:sqlite, which reads a stopped store in place', () => {
	it('prints no warning on stderr: the store read in place, stderr empty', () => {
		const dir = tempDir();
		const db = path.join(dir, 'state.db');
		const made = spawnSync(
			process.execPath,
			[path.join(ROOT, 'dist/simulator/writer-process.js'), '--db', db, '--shape', 'v30', '--journal', 'wal'],
			{
				input:
					`${JSON.stringify({op: 'create', session: {source: 'cli', startedAt: 1_780_000_000}})}\n` +
					`${JSON.stringify({op: 'close'})}\n`,
				encoding: 'utf8',
				timeout: 20_000,
			},
		);
		expect(made.status).toBe(0);
		expect(fs.readdirSync(dir)).toEqual(['state.db']);
		const run = spawnSync(process.execPath, [BIN, 'scan', '--db', db, '--json'], {
			encoding: 'utf8',
			env: {...process.env, NO_COLOR: '1'},
			timeout: 20_000,
		});
		expect(run.stderr).toBe('');
		expect(run.status).toBe(0);
		expect((JSON.parse(run.stdout) as {database: {openMode: string}}).database.openMode).toBe('in-place');
		expect(fs.readdirSync(dir)).toEqual(['state.db']);
	});
});

describe("the young generation (issue #26: the TUI's RSS)", () => {
	it('stays at its start size through the bundle, set before it loads (after, it had grown to 4 MB)', () => {
		// Read at the process's exit by a module Node loads before the bin: the new space's size then.
		const dir = tempDir();
		const probe = path.join(dir, 'new-space.mjs');
		fs.writeFileSync(
			probe,
			"import v8 from 'node:v8';\n" +
				'process.on("exit", () => process.stderr.write(`new space ${v8.getHeapSpaceStatistics()' +
				'.find(s => s.space_name === "new_space").space_size}\\n`));\n',
		);
		const run = spawnSync(process.execPath, ['--import', probe, BIN, '--help'], {
			encoding: 'utf8',
			timeout: 20_000,
		});
		expect(run.status).toBe(0);
		const bytes = Number(/new space (\d+)/.exec(run.stderr)?.[1]);
		expect(bytes).toBeGreaterThan(0);
		// Two semi-spaces of 1 MB.
		expect(bytes).toBeLessThanOrEqual(2 * 1024 * 1024);
	});
});
