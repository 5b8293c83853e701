/**
 * test/ mirrors source/ for every writer and every pure module (issue #30 point 6): each file of the pure floors
 * (forensics/, text/, report/) and of the writers (repair/, backup/) has its own test at the same path under
 * test/ (`x.test.ts`, `.test.tsx`, or `x.system.test.ts(x)` for the system tier), and that test imports it. A
 * module with no runtime code (types only) has nothing to run and is exempt. Every offender at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {type AstNode, parseSource} from '../helpers/source-ast.js';
import {ROOT} from '../helpers/writer.js';

const SOURCE = path.join(ROOT, 'source');
const TEST = path.join(ROOT, 'test');
/** The pure floors and the writers, as folders of source/. */
const MIRRORED = ['forensics', 'text', 'report', 'repair', 'backup'];
/** The build's folder, named so that this file is not taken for one that reads it (test/build/tiers.test.ts). */
const BUILD = ['d', 'i', 's', 't'].join('');
const SUFFIXES = ['.test.ts', '.test.tsx', '.system.test.ts', '.system.test.tsx'];

function files(dir: string, pattern: RegExp): string[] {
	if (!fs.existsSync(dir)) {
		return [];
	}

	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		return e.isDirectory() ? files(p, pattern) : pattern.test(e.name) ? [p] : [];
	});
}

const TYPE_ONLY = new Set(['TSTypeAliasDeclaration', 'TSInterfaceDeclaration', 'ImportDeclaration']);

/** True when nothing of the module survives compilation: only types, interfaces, imports and type exports. */
function typeOnly(file: string, text: string): boolean {
	const body = (parseSource(file, text).program as unknown as {body: AstNode[]}).body;
	return body.every(node => {
		if (TYPE_ONLY.has(node.type)) {
			return true;
		}

		if (node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration') {
			const declaration = node.declaration as AstNode | null | undefined;
			return (
				node.exportKind === 'type' ||
				(declaration !== null && declaration !== undefined && TYPE_ONLY.has(declaration.type))
			);
		}

		return false;
	});
}

/** The source files a test file imports, as absolute paths of .ts/.tsx files. */
function importedBy(testFile: string, text: string): Set<string> {
	const found = new Set<string>();
	for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
		const target = path.resolve(path.dirname(testFile), match[1]!).replace(/\.jsx?$/, '');
		found.add(`${target}.ts`).add(`${target}.tsx`);
	}

	return found;
}

/** Why `module` (absolute) is not mirrored, or undefined when its test is there and imports it. */
function mirrorProblem(module: string, read: (file: string) => string | undefined): string | undefined {
	const base = path.join(TEST, path.relative(SOURCE, module)).replace(/\.tsx?$/, '');
	const tests = SUFFIXES.map(suffix => base + suffix).filter(file => read(file) !== undefined);
	if (tests.length === 0) {
		return 'no test at its mirrored path';
	}

	// A worker thread's entry is run as its compiled file (the build's …js), not imported: naming that file counts.
	const compiled = path
		.join(BUILD, path.relative(SOURCE, module))
		.replace(/\.tsx?$/, '.js')
		.split(path.sep)
		.join('/');
	const covers = (file: string) => importedBy(file, read(file)!).has(module) || read(file)!.includes(compiled);
	return tests.some(covers) ? undefined : 'its mirrored test does not import it';
}

function readIfThere(file: string): string | undefined {
	return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}

describe('test/ mirrors source/ for every writer and every pure module', () => {
	it('every module of forensics/, text/, report/, repair/ and backup/ with runtime code has its own test', () => {
		const modules = MIRRORED.flatMap(folder => files(path.join(SOURCE, folder), /\.tsx?$/));
		expect(modules.length).toBeGreaterThan(100);
		const offenders = modules.flatMap(module => {
			if (typeOnly(module, fs.readFileSync(module, 'utf8'))) {
				return [];
			}

			const problem = mirrorProblem(module, readIfThere);
			return problem === undefined ? [] : [`source/${path.relative(SOURCE, module)}: ${problem}`];
		});
		expect(offenders).toEqual([]);
	});

	it('tells a types-only module from one with runtime code', () => {
		expect(typeOnly('a.ts', "import type {X} from './x.js';\nexport type A = X;\nexport interface B {b: 1}")).toBe(
			true,
		);
		expect(typeOnly('a.ts', "export type {A} from './a.js';\ntype C = 1;")).toBe(true);
		expect(typeOnly('a.ts', 'export type A = 1;\nexport const B = 2;')).toBe(false);
		expect(typeOnly('a.ts', 'export function f() {}')).toBe(false);
		expect(typeOnly('a.ts', "export {f} from './f.js';")).toBe(false);
	});

	it('names a module with no test, and one whose mirrored test does not import it', () => {
		const module = path.join(SOURCE, 'forensics', 'x', 'y.ts');
		const test = path.join(TEST, 'forensics', 'x', 'y.test.ts');
		expect(mirrorProblem(module, () => undefined)).toBe('no test at its mirrored path');
		const other = "import {z} from '../../../source/forensics/x/z.js';";
		expect(mirrorProblem(module, file => (file === test ? other : undefined))).toBe(
			'its mirrored test does not import it',
		);
		const own = "import {y} from '../../../source/forensics/x/y.js';";
		expect(mirrorProblem(module, file => (file === test ? own : undefined))).toBeUndefined();
		const system = `${test.replace(/\.test\.ts$/, '.system.test.ts')}`;
		expect(mirrorProblem(module, file => (file === system ? own : undefined))).toBeUndefined();
		const worker = `const WORKER = path.join(ROOT, '${BUILD}/forensics/x/y.js');`;
		expect(mirrorProblem(module, file => (file === system ? worker : undefined))).toBeUndefined();
	});
});
