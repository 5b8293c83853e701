/**
 * The `hfx` bin loads one bundle, split into chunks loaded on demand (scripts/bundle.mjs). Two things in it are easy to
 * break
 * silently: the frame builder is patched into Ink's Output class (source/ui/ink/ink+8.0.0.patch),
 * so the bundle must hold exactly one copy of it, the patched one; and yazl (its CRC-32 is swapped for zlib's) and
 * better-sqlite3 (native) must stay outside, loaded from node_modules.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {spawnSync} from 'node:child_process';
import {describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/writer.js';

const bundle = path.join(ROOT, 'dist', 'hfx.js');

type Meta = {
	inputs: Record<string, unknown>;
	outputs: Record<string, {imports: Array<{path: string; external?: boolean}>}>;
};

describe('the hfx bundle', () => {
	// The code itself is the bundle beside the bin (dist/hfx.js is the launcher, source/cli/bin.ts) and its chunks.
	const meta = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist', 'hfx.meta.json'), 'utf8')) as Meta;
	const outputs = Object.keys(meta.outputs).filter(o => o.endsWith('.js'));
	const text = outputs.map(o => fs.readFileSync(path.join(ROOT, o), 'utf8')).join('\n');
	const inputs = Object.keys(meta.inputs);
	const externals = new Set(outputs.flatMap(o => meta.outputs[o]!.imports.filter(i => i.external).map(i => i.path)));

	it('is the entry and its chunks, all beside the bin in dist/ (ground/paths.ts finds dist/ from any of them)', () => {
		expect(outputs).toContain('dist/hfx-bundle.js');
		expect(outputs.every(o => /^dist\/hfx-(bundle|chunk-\w+)\.js$/.test(o))).toBe(true);
		expect(outputs.length).toBeGreaterThan(1);
		// No chunk of an earlier build left behind: every hfx-chunk file in dist/ is this build's.
		const onDisk = fs
			.readdirSync(path.join(ROOT, 'dist'))
			.filter(n => /^hfx-chunk-\w+\.js$/.test(n))
			.map(n => `dist/${n}`);
		expect(onDisk.sort()).toEqual(outputs.filter(o => o.includes('chunk')).sort());
	});

	it('keeps the TUI out of what `hfx --version` loads: the entry imports neither Ink nor React', () => {
		const entry = meta.outputs['dist/hfx-bundle.js'] as unknown as {
			inputs: Record<string, unknown>;
			imports: Array<{path: string; kind: string}>;
		};
		const eager = new Set<string>();
		const visit = (output: string) => {
			for (const i of meta.outputs[output]!.imports) {
				if ((i as {kind?: string}).kind === 'import-statement' && !eager.has(i.path) && meta.outputs[i.path]) {
					eager.add(i.path);
					visit(i.path);
				}
			}
		};

		visit('dist/hfx-bundle.js');
		const eagerInputs = [
			entry,
			...[...eager].map(o => meta.outputs[o] as unknown as {inputs: Record<string, unknown>}),
		].flatMap(o => Object.keys(o.inputs));
		expect(eagerInputs.filter(p => p.includes('node_modules/ink/') || p.includes('node_modules/react'))).toEqual([]);
		expect(eagerInputs).toContain('dist/cli/main.js');
	});

	it('holds exactly one Ink Output class, one Ink and one React (no nested copies)', () => {
		expect(inputs.filter(p => p.endsWith('/ink/build/output.js'))).toEqual(['node_modules/ink/build/output.js']);
		expect(inputs.filter(p => p.endsWith('/ink/build/ink.js'))).toHaveLength(1);
		expect(inputs.filter(p => /\/react\/cjs\/react\.production\.js$/.test(p))).toHaveLength(1);
	});

	it("carries Ink's patched frame builder, with Ink's own beside it (HFX_INK_OUTPUT=ink)", () => {
		expect(text).toContain('HFX_INK_OUTPUT');
		expect(text).toContain('getInk(){');
	});

	it('carries meow as published, with its one patch (patches/meow+14.1.0.patch): no other meow layer', () => {
		expect(inputs.filter(p => p.startsWith('node_modules/meow/')).sort()).toEqual(
			['dependencies', 'index', 'options', 'parser', 'utils', 'validate'].map(f => `node_modules/meow/build/${f}.js`),
		);
		// The patch is applied (normalize-package-data and code-frame load on first use), and nothing else rewrites meow.
		expect(fs.readFileSync(path.join(ROOT, 'node_modules/meow/build/dependencies.js'), 'utf8')).toContain(
			'normalizeExports ??= requireNormalize()',
		);
		expect(inputs.filter(p => p.includes('meow') && !p.startsWith('node_modules/meow/'))).toEqual([]);
		expect(fs.existsSync(path.join(ROOT, 'scripts'))).toBe(true);
		expect(fs.readdirSync(path.join(ROOT, 'scripts')).filter(f => f.startsWith('meow-'))).toEqual([]);
	});

	it("carries React's production build only, and no DevTools bridge (less to parse at every start)", () => {
		expect(inputs.filter(p => /\/(react|react-reconciler|scheduler)\/cjs\/.*development\.js$/.test(p))).toEqual([]);
		expect(inputs.filter(p => /\/react-reconciler\/cjs\/react-reconciler\.production\.js$/.test(p))).toHaveLength(1);
		expect(
			inputs.filter(
				p =>
					p.includes('node_modules/ws/') ||
					p.includes('react-devtools-core') ||
					p.endsWith('devtools-window-polyfill.js'),
			),
		).toEqual([]);
	});

	it("loads yoga's WebAssembly without fetch() (which would load undici at every start)", () => {
		expect(inputs.some(p => p.endsWith('yoga-layout/dist/binaries/yoga-wasm-base64-esm.js'))).toBe(true);
		expect(text).not.toContain('credentials:"same-origin"');
		expect(text).toContain('both async and sync fetching of the wasm failed');
	});

	it("gives Ink's four text modules the lazy segmenter (no ICU segmenter built at load or for plain text)", () => {
		// string-width (Ink's and wrap-ansi's), slice-ansi and ansi-tokenize build none of their own:
		// the only one left is the lazy segmenter's (format.ts's truncate uses it too).
		expect(text.match(/new Intl\.Segmenter\b/g)).toHaveLength(1);
		expect(inputs).toContain('dist/text/segmenter.js');
	});

	it("measures Ink's text nodes through text/width.ts (no string-width for the first frame's narrow symbols)", () => {
		const measure = meta.inputs['node_modules/ink/build/measure-text.js'] as {imports: Array<{path: string}>};
		expect(measure.imports.map(i => i.path)).toContain('dist/text/width.js');
	});

	it('leaves yaml to node_modules, required only when doctor reads a config.yaml', () => {
		expect(inputs.some(p => p.includes('node_modules/yaml/'))).toBe(false);
		const external = externals;
		expect(external.has('yaml')).toBe(false);
		expect(text).toMatch(/\("yaml"\)/);
	});

	it('leaves prom-client to node_modules, required only when hfx metrics or hfx watch writes', () => {
		expect(inputs.some(p => p.includes('node_modules/prom-client/'))).toBe(false);
		const external = externals;
		expect(external.has('prom-client')).toBe(false);
		expect(text).toMatch(/\("prom-client"\)/);
	});

	it('leaves better-sqlite3 and yazl to node_modules, and loads yazl only to write an archive', () => {
		expect(inputs.some(p => p.includes('node_modules/better-sqlite3/') || p.includes('node_modules/yazl/'))).toBe(
			false,
		);
		const external = externals;
		expect(external.has('better-sqlite3')).toBe(true);
		// Not imported at the top of the bundle (every start would load it): required on first use.
		expect(external.has('yazl')).toBe(false);
		expect(text).toMatch(/\("yazl"\)/);
	});

	it('has minified names, and a source map that names our files and functions again in an internal error', () => {
		// An fs.statSync/lstatSync that fails in a way hfx does not expect, loaded before the bin.
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-bundle-'));
		const hook = path.join(dir, 'fail.cjs');
		fs.writeFileSync(
			hook,
			'const fs = require("fs"); for (const name of ["statSync", "lstatSync"]) ' +
				'{ const stat = fs[name]; fs[name] = function (p, ...a) { if ' +
				'(String(p).includes("boom")) throw new TypeError("synthetic failure"); ' +
				'return stat.call(this, p, ...a); }; }\n',
		);
		try {
			const run = (options: string) =>
				spawnSync(process.execPath, [bundle, 'scan', '--db', path.join(dir, 'boom.db')], {
					encoding: 'utf8',
					env: {...process.env, NODE_OPTIONS: options},
				});
			const plain = run(`--require ${hook}`);
			expect(plain.status).toBe(2);
			expect(plain.stderr).toContain('hfx: internal error: TypeError: synthetic failure');
			expect(plain.stderr).not.toContain('preflight');
			expect(plain.stderr).toContain('NODE_OPTIONS=--enable-source-maps');
			const mapped = run(`--require ${hook} --enable-source-maps`);
			expect(mapped.status).toBe(2);
			expect(mapped.stderr).toMatch(/at preflight \(.*source\/store\/open\/preflight\.ts:\d+:\d+\)/);
			expect(mapped.stderr).not.toContain('NODE_OPTIONS=--enable-source-maps');
		} finally {
			fs.rmSync(dir, {recursive: true, force: true});
		}
	});

	it('is the package bin and runs', () => {
		const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {bin: Record<string, string>};
		expect(pkg.bin.hfx).toBe('dist/hfx.js');
		expect(fs.readFileSync(bundle, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
		const r = spawnSync(process.execPath, [bundle, '--version'], {encoding: 'utf8'});
		expect(r.status).toBe(0);
		expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
	});
});
