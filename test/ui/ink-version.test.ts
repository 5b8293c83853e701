/**
 * hfx's changes to Ink are one patch-package patch, written against one Ink version
 * (source/ui/ink/ink+<version>.patch; `npm install` applies it with --error-on-fail). These fail
 * when the installed Ink, the pin in package.json and the patch's version disagree, or when the
 * installed Ink is not the patched one: the cue to walk source/ui/ink/README.md's upgrade checklist.
 */
import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/writer.js';

function installedInk(): {version: string; build: string} {
	// Ink's exports map lists no package.json: its entry (build/index.js) is one folder below it.
	const build = path.dirname(createRequire(import.meta.url).resolve('ink'));
	return {
		version: (JSON.parse(fs.readFileSync(path.join(build, '..', 'package.json'), 'utf8')) as {version: string}).version,
		build,
	};
}

describe("the Ink patch's version", () => {
	it("is the installed Ink's, pinned exactly in package.json", () => {
		const {version} = installedInk();
		const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
			devDependencies: Record<string, string>;
		};
		expect(pkg.devDependencies.ink).toBe(version);
		const patches = fs.readdirSync(path.join(ROOT, 'source/ui/ink')).filter(f => f.endsWith('.patch'));
		expect(patches).toEqual([`ink+${version}.patch`]);
	});

	it(
		'was applied to the installed Ink: every file the patch changes carries ' + 'its hermes-forensics patch comments',
		() => {
			const {version, build} = installedInk();
			const patch = fs.readFileSync(path.join(ROOT, 'source/ui/ink', `ink+${version}.patch`), 'utf8');
			const files = [...patch.matchAll(/^\+\+\+ b\/node_modules\/ink\/(build\/[\w-]+\.js)$/gm)].map(m => m[1]!);
			expect(files).toContain('build/output.js');
			for (const file of files) {
				const added = patch.split(/^diff --git /m).find(part => part.includes(`+++ b/node_modules/ink/${file}`))!;
				const comments = added
					.split('\n')
					.filter(line => line.startsWith('+') && line.includes('hermes-forensics patch:')).length;
				const installed =
					fs.readFileSync(path.join(build, '..', file), 'utf8').split('hermes-forensics patch:').length - 1;
				expect({file, comments: installed}).toEqual({file, comments});
				expect(comments).toBeGreaterThan(0);
			}
		},
	);
});
