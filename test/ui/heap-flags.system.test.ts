/**
 * The heap settings (issue #26): after the bin's keepYoungGenerationSmall, a process that churns short-lived
 * objects as Ink's frames do keeps its young generation at its start size instead of doubling it to
 * V8's maximum; the TUI's own settings (ui/heap-flags.ts) leave Maglev on until the first analysis, then off. Run in a
 * fresh Node process: the flags act on the heap of the process that sets them.
 */
import {execFileSync} from 'node:child_process';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {describe, expect, it} from 'vitest';

const MODULE = pathToFileURL(path.resolve(__dirname, '../../source/ui/heap-flags.ts')).href;
const BIN_MODULE = pathToFileURL(path.resolve(__dirname, '../../source/cli/bin.ts')).href;

/** New-space bytes of a fresh Node after ~1 GB of frame-like garbage, with the bin's setting or without. */
function newSpaceAfterChurn(tuned: boolean): number {
	const script = `
		const v8 = await import('node:v8');
		if (${tuned}) (await import(${JSON.stringify(BIN_MODULE)})).keepYoungGenerationSmall();
		let kept = [];
		for (let i = 0; i < 1e7; i++) {
			const cell = {char: 'x', style: [i, i + 1]};
			if (i % 50 === 0) kept.push(cell);
			if (kept.length > 20_000) kept = [];
		}
		const space = v8.getHeapSpaceStatistics().find(s => s.space_name === 'new_space');
		process.stdout.write(String(space.space_size));
	`;
	return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], {encoding: 'utf8'}));
}

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

/** The tiers V8 compiled a hot function with in a fresh Node, after `call` of heap-flags.ts (null: none). */
function compiledAfter(call: 'leaveOutMaglev' | 'tuneHeapForFollowing' | null): string[] {
	const script = `
		if (${JSON.stringify(call)}) (await import(${JSON.stringify(MODULE)}))[${JSON.stringify(call)}]();
		process.stdout.write('tuned\\n');
		const hot = (a, i) => a + (i % 7);
		let n = 0;
		for (let r = 0; r < 2000; r++) for (let i = 0; i < 2000; i++) n = hot(n, i);
		process.stdout.write(String(n) + '\\n');
	`;
	const flags = ['--trace-opt', '--input-type=module', '-e', script];
	const out = execFileSync(process.execPath, flags, {encoding: 'utf8'});
	const after = out.slice(out.indexOf('tuned\n'));
	return [...after.matchAll(/completed compiling .*?\(target (\w+)\)/g)].map(m => m[1]!);
}

describe('the heap flags of the follower', () => {
	it('keepYoungGenerationSmall: the young generation keeps its start size under churn (V8 alone: past 8 MB)', () => {
		const untuned = newSpaceAfterChurn(false);
		const tuned = newSpaceAfterChurn(true);
		expect(untuned).toBeGreaterThan(8 * 1024 * 1024);
		expect(tuned).toBeLessThanOrEqual(4 * 1024 * 1024);
	}, 60_000);

	it("leaveOutMaglev: a hot function is compiled by TurboFan alone, not by V8's Maglev tier", () => {
		const tuned = compiledAfter('leaveOutMaglev');
		expect(tuned).not.toContain('MAGLEV');
		expect(tuned.some(tier => tier.startsWith('TURBOFAN'))).toBe(true);
		// Node 24's V8 compiles a hot function with Maglev first; Node 22's does not (there the flag changes nothing).
		if (NODE_MAJOR >= 24) {
			expect(compiledAfter(null)).toContain('MAGLEV');
		}
	}, 60_000);

	it('tuneHeapForFollowing (set before the first read) leaves Maglev on: the start-up code warms up in it', () => {
		if (NODE_MAJOR >= 24) {
			expect(compiledAfter('tuneHeapForFollowing')).toContain('MAGLEV');
		}
	}, 60_000);
});
