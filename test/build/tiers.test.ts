/**
 * The test tiers of vitest.config.ts (issue #30): every test file runs in exactly one project, and a
 * unit test is pure and in-process: it imports no child_process, no helper that starts a process
 * (the writer process, the real binary, tmux; only ROOT and types may come from one) and reads
 * nothing from dist/ (`npm run test:unit` does not build). Every offender at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import config from '../../vitest.config.js';
import {ROOT} from '../helpers/writer.js';

type Project = {test: {name: string; include: string[]; exclude?: string[]}};

const PROJECTS = (config.test?.projects ?? []) as Project[];

function testFiles(): string[] {
	return fs.globSync(['test/**/*.test.ts', 'test/**/*.test.tsx'], {cwd: ROOT}).sort();
}

function projectFiles(project: Project): Set<string> {
	const excluded = new Set(fs.globSync(project.test.exclude ?? [], {cwd: ROOT}));
	return new Set(fs.globSync(project.test.include, {cwd: ROOT}).filter(file => !excluded.has(file)));
}

/** Each test file that runs in no project or in more than one, with the projects it runs in. */
function misplaced(files: string[], projects: Array<{name: string; files: Set<string>}>): string[] {
	return files.flatMap(file => {
		const names = projects.filter(p => p.files.has(file)).map(p => p.name);
		return names.length === 1 ? [] : [`${file}: ${names.length === 0 ? 'no project' : names.join(' and ')}`];
	});
}

const CHILD_PROCESS = /from\s+'node:child_process'|require\('(?:node:)?child_process'\)/;
const STARTS_A_PROCESS = /from\s+'node:child_process'|new WriterProcess\(/;
const DIST = /['"`/]dist['"`/]/;
const IMPORT = /import\s+(type\s+)?\{([^}]*)\}\s+from\s+'(\.[^']+)'|import\s+(type\s+)?\w+\s+from\s+'(\.[^']+)'/g;

/** What `text` imports from relative modules, but for type-only imports: [resolved module, names]. */
function valueImports(file: string, text: string): Array<[string, string[]]> {
	return [...text.matchAll(IMPORT)].flatMap(m => {
		const spec = m[3] ?? m[5]!;
		if (m[1] ?? m[4]) {
			return [];
		}

		const names = (m[2] ?? 'default')
			.split(',')
			.map(n => n.trim())
			.filter(n => n && !n.startsWith('type '));
		const resolved = path.relative(ROOT, path.resolve(path.dirname(file), spec)).replace(/\.js$/, '');
		return names.length > 0 ? [[resolved, names] as [string, string[]]] : [];
	});
}

/** test/helpers modules (without extension) that start a process, themselves or through another one. */
function processHelpers(): Set<string> {
	const helpers = fs
		.globSync('test/helpers/*.{ts,tsx}', {cwd: ROOT})
		.map(file => ({file, text: fs.readFileSync(path.join(ROOT, file), 'utf8')}));
	const starting = new Set(helpers.filter(h => STARTS_A_PROCESS.test(h.text)).map(h => h.file.replace(/\.tsx?$/, '')));
	for (let grown = true; grown; ) {
		grown = false;
		for (const h of helpers) {
			const name = h.file.replace(/\.tsx?$/, '');
			if (!starting.has(name) && startsThrough(valueImports(h.file, h.text), starting).length > 0) {
				starting.add(name);
				grown = true;
			}
		}
	}

	return starting;
}

/** The imports that bring a process starter in: anything but ROOT from a process helper. */
function startsThrough(imports: Array<[string, string[]]>, helpers: Set<string>): string[] {
	return imports.flatMap(([module, names]) =>
		helpers.has(module) && names.some(n => n !== 'ROOT') ? [`${module} (${names.join(', ')})`] : [],
	);
}

/** Why a unit test file is not pure and in-process, one line each. */
function impurities(file: string, text: string, helpers: Set<string>): string[] {
	return [
		...(CHILD_PROCESS.test(text) ? [`${file}: imports child_process`] : []),
		...(DIST.test(text) ? [`${file}: reads dist/`] : []),
		...startsThrough(valueImports(file, text), helpers).map(why => `${file}: starts a process through ${why}`),
	];
}

describe('the test tiers', () => {
	it('run every test file in exactly one project (every offender at once)', () => {
		const projects = PROJECTS.map(p => ({name: p.test.name, files: projectFiles(p)}));
		expect(projects.map(p => p.name)).toEqual(['unit', 'system', 'fleet']);
		expect(misplaced(testFiles(), projects)).toEqual([]);
	});

	it('keep the unit tier pure and in-process (every offender at once)', () => {
		const unit = projectFiles(PROJECTS.find(p => p.test.name === 'unit')!);
		const helpers = processHelpers();
		expect(helpers).toContain('test/helpers/writer');
		expect(helpers).toContain('test/helpers/cli');
		// This file is left out: its last test spells every offence as an example.
		const offenders = [...unit]
			.filter(file => file !== 'test/build/tiers.test.ts')
			.flatMap(file => impurities(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), helpers));
		expect(offenders).toEqual([]);
	});

	it('the checks catch a file in no project or two, and a unit test starting a process', () => {
		const projects = [
			{name: 'unit', files: new Set(['a.test.ts', 'b.test.ts'])},
			{name: 'system', files: new Set(['b.test.ts'])},
		];
		expect(misplaced(['a.test.ts', 'b.test.ts', 'c.test.ts'], projects)).toEqual([
			'b.test.ts: unit and system',
			'c.test.ts: no project',
		]);
		const helpers = new Set(['test/helpers/writer', 'test/helpers/cli']);
		const text = [
			"import {spawn} from 'node:child_process';",
			"import {ROOT, WriterProcess} from '../helpers/writer.js';",
			"import {hfx} from '../helpers/cli.js';",
			"import type {Rendered} from '../helpers/cli.js';",
			"const bin = path.join(ROOT, 'dist/hfx.js');",
		].join('\n');
		expect(impurities('test/ui/x.test.ts', text, helpers)).toEqual([
			'test/ui/x.test.ts: imports child_process',
			'test/ui/x.test.ts: reads dist/',
			'test/ui/x.test.ts: starts a process through test/helpers/writer (ROOT, WriterProcess)',
			'test/ui/x.test.ts: starts a process through test/helpers/cli (hfx)',
		]);
		expect(impurities('test/ui/y.test.ts', "import {ROOT} from '../helpers/writer.js';", helpers)).toEqual([]);
	});
});
