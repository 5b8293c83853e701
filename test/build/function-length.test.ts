/**
 * Functions that fit in one head: none in source/ is longer than 80 lines (from its first line
 * to its closing brace, inner functions included).
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {type AstNode, lineOf, parseSource, walk} from '../helpers/source-ast.js';
import {ROOT} from '../helpers/writer.js';

const MAX_LINES = 80;
/** file:function names allowed past the limit, with why (none now: the incremental analysis was the last). */
const EXEMPT = new Map<string, string>();

function sourceFiles(dir: string): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		return e.isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(e.name) ? [p] : [];
	});
}

type Fn = {where: string; name: string; lines: number};

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** A function's name: its own, its method's or property's key, or the variable it is assigned to. */
function nameOf(node: AstNode, parent: AstNode | undefined, text: string): string {
	const named = (n: unknown) =>
		n && typeof n === 'object' && 'start' in n ? text.slice((n as AstNode).start, (n as AstNode).end) : undefined;
	const own = named(node.id);
	if (own) {
		return own;
	}

	if (parent && ['MethodDefinition', 'Property', 'PropertyDefinition', 'VariableDeclarator'].includes(parent.type)) {
		return named(parent.key) ?? named(parent.id) ?? '(anonymous)';
	}

	return '(anonymous)';
}

/** Every function, method and arrow function in a file, with its length in lines. */
function functionsOf(file: string, text = fs.readFileSync(file, 'utf8')): Fn[] {
	const line = lineOf(text);
	const found: Fn[] = [];
	walk(parseSource(file, text).program as unknown as AstNode, (node, parent) => {
		if (FUNCTIONS.has(node.type) && node.body) {
			const first = line(node.start);
			found.push({
				where: `${path.basename(file)}:${first + 1}`,
				name: nameOf(node, parent, text),
				lines: line(node.end) - first + 1,
			});
		}
	});
	return found;
}

describe('functions fit in one head', () => {
	const source = path.join(ROOT, 'source');
	it(`no function over ${MAX_LINES} lines (every offender at once)`, () => {
		const long = sourceFiles(source).flatMap(file => {
			const rel = path.relative(source, file);
			return functionsOf(file)
				.filter(f => f.lines > MAX_LINES && !EXEMPT.has(`${rel}:${f.name}`))
				.map(f => `${rel}: ${f.name} (${f.where}) is ${f.lines} lines`);
		});
		expect(long).toEqual([]);
	});

	it('measures what it claims: a 90-line function is caught, nested arrows counted', () => {
		const body = Array.from({length: 88}, (_, i) => `\tconst v${i} = ${i};`).join('\n');
		const fns = functionsOf('x.ts', `export function big() {\n${body}\n}\nconst small = () => 1;\n`);
		expect(fns.find(f => f.name === 'big')?.lines).toBe(90);
		expect(fns.find(f => f.name === 'small')?.lines).toBe(1);
	});
});
