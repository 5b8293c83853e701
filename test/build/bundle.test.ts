/**
 * The `hfx` bin is one bundled file (scripts/bundle.mjs). Two things in it are easy to break
 * silently: the fast frame builder patches Ink's Output class, so the bundle must hold exactly
 * one copy of it (the one Ink renders with); and yazl (its CRC-32 is swapped for zlib's) and
 * better-sqlite3 (native) must stay outside, loaded from node_modules.
 */
import fs from 'node:fs';
import path from 'node:path';
import {spawnSync} from 'node:child_process';
import {describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/writer.js';

const bundle = path.join(ROOT, 'dist', 'hfx.js');

describe('the hfx bundle', () => {
	const text = fs.readFileSync(bundle, 'utf8');

	it('holds exactly one Ink, one Output class and one React', () => {
		const count = (marker: string) => text.split(`\n// ${marker}\n`).length - 1;
		expect(count('node_modules/ink/build/output.js')).toBe(1);
		expect(count('node_modules/ink/build/ink.js')).toBe(1);
		expect(count('node_modules/react/cjs/react.production.js')).toBe(1);
	});

	it('leaves better-sqlite3 and yazl to node_modules', () => {
		expect(text).not.toContain('\n// node_modules/better-sqlite3/');
		expect(text).not.toContain('\n// node_modules/yazl/');
		expect(text).toMatch(/from ["']better-sqlite3["']/);
		expect(text).toMatch(/from ["']yazl["']/);
	});

	it('is the package bin and runs', () => {
		const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {bin: Record<string, string>};
		expect(pkg.bin.hfx).toBe('dist/hfx.js');
		expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
		const r = spawnSync(process.execPath, [bundle, '--version'], {encoding: 'utf8'});
		expect(r.status).toBe(0);
		expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
	});
});
