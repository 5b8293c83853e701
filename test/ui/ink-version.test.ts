/**
 * Ink's version is injected at build time (source/ui/ink/version.ts; the bundle and vitest define
 * it from node_modules/ink/package.json). These fail if the injected version and the installed Ink
 * disagree, or if the frame builder would install on an Ink it was not written against: the cue
 * to walk source/ui/ink/README.md's upgrade checklist.
 */
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {describe, expect, it} from 'vitest';
import {installedInkVersion} from '../../source/ui/ink/bundle.mjs';
import {FAST_OUTPUT_INK_VERSION, installFastOutput, originalOutputGet} from '../../source/ui/ink/output.js';
import {INK_VERSION} from '../../source/ui/ink/version.js';

type OutputClass = {prototype: {get: unknown}};

function installed(): {version: string; dir: string} {
	const entry = createRequire(import.meta.url).resolve('ink');
	const dir = path.dirname(entry);
	return {version: (JSON.parse(fs.readFileSync(path.join(dir, '..', 'package.json'), 'utf8')) as {version: string}).version, dir};
}

describe('Ink\'s version, injected at build time', () => {
	it('is the installed Ink\'s, and the one the frame builder was written against', () => {
		expect(INK_VERSION).toBe(installed().version);
		expect(installedInkVersion()).toBe(installed().version);
		expect(INK_VERSION).toBe(FAST_OUTPUT_INK_VERSION);
	});

	it('is what the frame builder checks: another version leaves Ink\'s Output alone, the injected one installs it', async () => {
		const Output = (await import(pathToFileURL(path.join(installed().dir, 'output.js')).href) as {default: OutputClass}).default;
		const own = Output.prototype.get;
		for (const other of ['6.8.1', '6.9.0', '7.0.0', '6.7.0', '', undefined]) {
			expect(await installFastOutput({inkVersion: other})).toBe(false);
			expect(Output.prototype.get).toBe(own);
		}

		expect(originalOutputGet()).toBeUndefined();
		expect(await installFastOutput()).toBe(true);
		expect(Output.prototype.get).not.toBe(own);
		expect(originalOutputGet()).toBe(own);
	});
});
