/**
 * A test of `hfx watch` asserts that an event came by waiting for it (WatchProcess.waitForEach), never by reading the
 * events so far after waiting for another: a reading writes its events a line at a time, and a commit may be read in
 * the next reading, so what was not waited for may not have come yet. CI once saw an orphan's event missing one line
 * after the risk it came with; a run under load (2 busy loops) saw a rotation and an orphan's end missing after the
 * risk cleared (the two commits read in two readings). Counting what came (`.filter`) after a wait stays allowed.
 * Every offender in test/ is reported at once.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {codeFiles, linesBreaking} from '../helpers/code-files.js';
import {ROOT} from '../helpers/writer.js';

/** An event looked up in what came so far (`.events().find`, `.some`), or the events so far asserted on whole. */
function readsUnawaited(line: string): boolean {
	return /\.events\(\)\s*\.(find|some|every)\(/.test(line) || /expect\([^)]*\.events\(\)\)/.test(line);
}

function offenders(file: string, text?: string): string[] {
	return linesBreaking(file, readsUnawaited, text);
}

describe('events of hfx watch in tests', () => {
	it('are awaited (waitForEach), never looked up in what came so far', () => {
		const helper = path.join(ROOT, 'test/helpers/watch-process.ts');
		const files = codeFiles(path.join(ROOT, 'test')).filter(f => f !== helper && f !== import.meta.filename);
		expect(files.flatMap(f => offenders(f))).toEqual([]);
	});

	it('the check catches the lookups CI and the load run failed on, not a count or a wait', () => {
		const text = [
			"expect(watch.events()).toContainEqual(expect.objectContaining({event: 'rotation'}));",
			'const at = (name: string) => watch.events().find(e => e.event === name)!.at;',
			"expect(first.events().some(e => e.event === 'rollback-risk-raised')).toBe(true);",
			"expect(watch.events().filter(e => e.event === 'store-down')).toHaveLength(1);",
			"await watch.waitForEach([{event: 'rotation'}], 10_000);",
			'const events = () => new Set(watch.events().map(e => e.event as string));',
		].join('\n');
		expect(offenders('x.ts', text).map(l => l.split(':')[1])).toEqual(['1', '2', '3']);
	});
});
