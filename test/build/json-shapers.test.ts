/**
 * Every --json shaper lives in source/report/ (issue #30 point 2), so the JSON contract is what
 * report/ builds and test/commands/json-contract.test.ts snapshots. In commands/, the `json` of a
 * report handed to emit() returns a call of a function imported from report/ (or a value handed
 * in, built so by its caller), and io.json() is given no object built in place. Every offender at
 * once.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {type AstNode, lineOf, parseSource, walk} from '../helpers/source-ast.js';
import {codeFiles} from '../helpers/code-files.js';
import {ROOT} from '../helpers/writer.js';

const COMMANDS = path.join(ROOT, 'source/commands');

/** The names a file imports from a report/ module. */
function reportImports(program: AstNode): Set<string> {
	const names = new Set<string>();
	for (const node of program.body as AstNode[]) {
		const source = (node.source as {value?: string} | undefined)?.value ?? '';
		if (node.type === 'ImportDeclaration' && /(^|\/)report\//.test(source)) {
			for (const s of node.specifiers as Array<{local: {name: string}}>) {
				names.add(s.local.name);
			}
		}
	}

	return names;
}

/** What a function returns when it is one expression: an arrow's body, or a block's only statement, a return. */
function returned(fn: AstNode): AstNode | null {
	const body = fn.body as AstNode;
	if (body.type !== 'BlockStatement') {
		return body;
	}

	const statements = body.body as AstNode[];
	return statements.length === 1 && statements[0]!.type === 'ReturnStatement'
		? (statements[0]!.argument as AstNode)
		: null;
}

/** Whether `value` is a document built elsewhere: a call of a report/ function, or a name handed in. */
function shapedInReport(value: AstNode | null, fromReport: Set<string>): boolean {
	if (value?.type === 'Identifier') {
		return true;
	}

	const callee = value?.type === 'CallExpression' ? (value.callee as AstNode) : null;
	return callee?.type === 'Identifier' && fromReport.has(callee.name as string);
}

function isIoJson(node: AstNode): boolean {
	const callee = node.callee as AstNode;
	return (
		callee.type === 'MemberExpression' &&
		(callee.property as AstNode & {name?: string}).name === 'json' &&
		(callee.object as AstNode & {name?: string}).name === 'io'
	);
}

/** The JSON built in place in one commands/ file. */
function shaperViolations(file: string, text = fs.readFileSync(file, 'utf8')): string[] {
	const {program} = parseSource(file, text);
	const fromReport = reportImports(program as unknown as AstNode);
	const line = lineOf(text);
	const at = (node: AstNode) => `${path.relative(ROOT, file)}:${line(node.start) + 1}`;
	const out: string[] = [];
	walk(program as unknown as AstNode, node => {
		const key = node.key as (AstNode & {name?: string}) | undefined;
		const fn = node.value as AstNode | undefined;
		if (node.type === 'Property' && key?.name === 'json' && /Function/.test(fn?.type ?? '')) {
			if (!shapedInReport(returned(fn!), fromReport)) {
				out.push(`${at(node)}: a --json document built in a command (shape it in source/report/)`);
			}
		} else if (node.type === 'CallExpression' && isIoJson(node)) {
			const [arg] = node.arguments as AstNode[];
			if (arg?.type === 'ObjectExpression' || arg?.type === 'ArrayExpression') {
				out.push(`${at(node)}: io.json() given an object built in place (shape it in source/report/)`);
			}
		}
	});
	return out;
}

describe('every --json shaper in source/report/', () => {
	it('no command builds a --json document in place (every offender at once)', () => {
		expect(codeFiles(COMMANDS).flatMap(f => shaperViolations(f))).toEqual([]);
	});

	it('the check catches an object, a method, a local shaper and io.json({...}); not a report/ call', () => {
		const file = path.join(COMMANDS, 'x.ts');
		const caught = (body: string) => shaperViolations(file, body);
		expect(caught('emit(io, flags, {json: () => ({file, entries}), text: () => []});')).toHaveLength(1);
		expect(caught('emit(io, flags, {json() { return {a: 1}; }, text: () => []});')).toHaveLength(1);
		expect(
			caught('function mine(r) { return {r}; }\nemit(io, flags, {json: () => mine(r), text: () => []});')[0],
		).toContain('x.ts:2: a --json document built in a command');
		expect(caught("io.json({error: 'x'});")).toHaveLength(1);
		expect(
			caught(
				"import {gateJson} from '../report/gate-json.js';\n" +
					'emit(io, flags, {json: () => gateJson(r), text: () => []});\n' +
					'emit(io, flags, {json: () => json, text: () => []});\nio.json(report.json());',
			),
		).toEqual([]);
	});
});
