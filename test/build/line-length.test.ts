/**
 * Lines an 80-column SSH terminal split view can still hold in two halves: no line of source/,
 * test/, bench/ or scripts/ is wider than 120 columns, comments included, a tab counted as Biome
 * counts it (2 columns, its default indent width), so that the formatter's layout and this check
 * agree. Exempt is a line whose overflow is a regular expression literal: a regex is one token,
 * and splitting it into `new RegExp('…' + '…')` would double every escape of a test's expected
 * output. Every offender at once, as file:line:width.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {type AstNode, parseSource, walk} from '../helpers/source-ast.js';
import {ROOT} from '../helpers/writer.js';

const MAX_COLUMNS = 120;
const TAB_COLUMNS = 2;

function codeFiles(dir: string): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		// A hidden file is an artefact, not code: the reliability suite's bundle (test/reliability/.bundle-PID.mjs,
		// gitignored) while `npm run reliability` runs made this test fail with its 198 generated lines.
		if (e.name.startsWith('.')) {
			return [];
		}

		if (e.isDirectory()) {
			return e.name === 'node_modules' ? [] : codeFiles(p);
		}

		return /\.(?:tsx?|mts|mjs)$/.test(e.name) ? [p] : [];
	});
}

/** A line's width in columns: code points, a tab as Biome's indent width. */
function columns(line: string): number {
	return [...line.replaceAll('\t', ' '.repeat(TAB_COLUMNS))].length;
}

/** The regular expression literals of a file, as [start, end) offsets. */
function regexSpans(file: string, text: string): Array<[number, number]> {
	const spans: Array<[number, number]> = [];
	walk(parseSource(file, text).program as unknown as AstNode, node => {
		if (node.type === 'Literal' && 'regex' in node && node.regex) {
			spans.push([node.start, node.end]);
		}
	});
	return spans;
}

/** Each line over the limit, as file:line:width, but one that fits once its regex literals are left out. */
function wideLines(file: string, text = fs.readFileSync(file, 'utf8')): string[] {
	const lines = text.split('\n');
	if (!lines.some(l => columns(l) > MAX_COLUMNS)) {
		return [];
	}

	const spans = regexSpans(file, text);
	const found: string[] = [];
	let start = 0;
	for (const [i, line] of lines.entries()) {
		const end = start + line.length;
		if (columns(line) > MAX_COLUMNS) {
			const regexes = spans
				.filter(([a, b]) => a >= start && b <= end)
				.reduce((sum, [a, b]) => sum + columns(text.slice(a, b)), 0);
			if (columns(line) - regexes > MAX_COLUMNS || regexes === 0) {
				found.push(`${path.relative(ROOT, file)}:${i + 1}:${columns(line)}`);
			}
		}

		start = end + 1;
	}

	return found;
}

describe('lines fit in a split terminal', () => {
	it(`no line of source/, test/, bench/ or scripts/ is over ${MAX_COLUMNS} columns (every offender at once)`, () => {
		const offenders = ['source', 'test', 'bench', 'scripts']
			.flatMap(d => codeFiles(path.join(ROOT, d)))
			.flatMap(f => wideLines(f));
		expect(offenders).toEqual([]);
	});

	it('measures what it claims: a tab is 2 columns, a long regex is exempt, a long string is not', () => {
		const long = 'x'.repeat(110);
		const text = [
			`\t\t\t\tconst a = '${long.slice(0, 96)}';`,
			`\t\t\t\t\t\t\tconst b = '${long}';`,
			`expect(s).toMatch(/${long}/);`,
			`const c = 'yy' + /${long}/.source + '${long.slice(0, 100)}';`,
		].join('\n');
		expect(wideLines('x.ts', text)).toEqual(['x.ts:2:137', 'x.ts:4:242']);
	});
});
