/**
 * A test of `hfx watch` asserts that an event came by waiting for it (WatchProcess.waitForEach), never by reading the
 * events so far after waiting for another: a reading writes its events a line at a time, and a commit may be read in
 * the next reading, so what was not waited for may not have come yet. CI once saw an orphan's event missing one line
 * after the risk it came with; a run under load (2 busy loops) saw a rotation and an orphan's end missing after the
 * risk cleared (the two commits read in two readings). Counting what came (`.filter`) after a wait stays allowed.
 * Every offender in test/ is reported at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {codeFiles} from '../helpers/code-files.js';
import {ROOT} from '../helpers/writer.js';

/**
 * An event looked up in what came so far (`.events().find`, `.some`, `.at`, `[i]`...), or the events so far asserted
 * on whole or mapped (`expect(x.events())`, `expect(x.events().map(...))`); a chain the formatter split over lines too.
 */
const UNAWAITED = [
	/\.events\(\)\s*(?:\.(?:find|findLast|findIndex|findLastIndex|some|every|at|includes)\(|\[)/g,
	/expect\(\s*[\w.]+\s*\.events\(\)\s*(?:\)|\.map\()/g,
];

function offenders(file: string, text = fs.readFileSync(file, 'utf8')): string[] {
	return UNAWAITED.flatMap(pattern =>
		[...text.matchAll(pattern)].map(m => {
			const line = text.slice(0, m.index).split('\n').length;
			return `${path.relative(ROOT, file)}:${line}: ${text.split('\n')[line - 1]!.trim()}`;
		}),
	);
}

describe('events of hfx watch in tests', () => {
	it('are awaited (waitForEach), never looked up in what came so far', () => {
		const helper = path.join(ROOT, 'test/helpers/watch-process.ts');
		const files = codeFiles(path.join(ROOT, 'test')).filter(f => f !== helper && f !== import.meta.filename);
		expect(files.flatMap(f => offenders(f))).toEqual([]);
	});

	it('the check catches the lookups CI and the load run failed on, split over lines too, not a count or a wait', () => {
		const text = [
			"expect(watch.events()).toContainEqual(expect.objectContaining({event: 'rotation'}));",
			'const at = (name: string) => watch.events().find(e => e.event === name)!.at;',
			"expect(first.events().some(e => e.event === 'rollback-risk-raised')).toBe(true);",
			'const last = watch',
			'\t.events()',
			"\t.find(e => e.event === 'rotation');",
			"expect(watch.events().map(e => e.event)).toContain('rotation');",
			'const third = watch.events()[2];',
			"expect(watch.events().filter(e => e.event === 'store-down')).toHaveLength(1);",
			"await watch.waitForEach([{event: 'rotation'}], 10_000);",
			'const events = () => new Set(watch.events().map(e => e.event as string));',
		].join('\n');
		const lines = offenders('x.ts', text).map(l => Number(l.split(':')[1]));
		expect(lines.sort((a, b) => a - b)).toEqual([1, 2, 3, 5, 7, 8]);
	});
});
