/**
 * Spaces a terminal shows are never JSX text: Biome's formatter treats a run of spaces inside JSX
 * text as one (as a browser would) and rewrote `<Text>  looking…</Text>` to `<Text> looking…</Text>`,
 * changing what Ink prints. Two or more spaces that React keeps go in a string expression instead,
 * `<Text>{'  looking…'}</Text>`, which the formatter leaves alone. Every offender at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {type AstNode, lineOf, parseSource, walk} from '../helpers/source-ast.js';
import {ROOT} from '../helpers/writer.js';

function tsxFiles(dir: string): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		return e.isDirectory() ? tsxFiles(p) : e.name.endsWith('.tsx') ? [p] : [];
	});
}

/** Whether JSX text holds a run of spaces React renders: a line's indentation and line ends aside. */
function keepsSpaceRun(raw: string): boolean {
	const lines = raw.split('\n');
	return lines.some((line, i) => {
		const start = i === 0 ? line : line.replace(/^[ \t]+/, '');
		const kept = i === lines.length - 1 ? start : start.replace(/[ \t]+$/, '');
		return / {2,}/.test(kept);
	});
}

/** Each JSX text with a run of spaces the formatter would collapse, as file:line. */
function spaceRuns(file: string, text = fs.readFileSync(file, 'utf8')): string[] {
	const line = lineOf(text);
	const found: string[] = [];
	walk(parseSource(file, text).program as unknown as AstNode, node => {
		if (node.type === 'JSXText' && keepsSpaceRun(String(node.value))) {
			found.push(`${path.relative(ROOT, file)}:${line(node.start) + 1}: ${JSON.stringify(node.value)}`);
		}
	});
	return found;
}

describe('JSX text', () => {
	it('holds no run of spaces the formatter would collapse (every offender at once)', () => {
		const offenders = ['source', 'test'].flatMap(d => tsxFiles(path.join(ROOT, d))).flatMap(f => spaceRuns(f));
		expect(offenders).toEqual([]);
	});

	it('the check catches leading, inner and trailing runs, not indentation or a string expression', () => {
		const caught = spaceRuns(
			'x.tsx',
			[
				'const a = <Text>  looking</Text>;',
				'const b = <Text>a  b</Text>;',
				'const c = <Text>a  </Text>;',
				'const d = (\n\t<Text>\n\t\tindented text\n\t</Text>\n);',
				"const e = <Text>{'  kept'}</Text>;",
			].join('\n'),
		);
		expect(caught.map(c => c.split(':')[1])).toEqual(['1', '2', '3']);
	});
});
