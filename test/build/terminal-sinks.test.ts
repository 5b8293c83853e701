/**
 * The terminal sinks, enforced (issue #17, class 8). A string from a store, a file name, an
 * archive or /proc reaches a terminal only through a sink that makes it safe (text/sanitize.ts):
 *
 * - the commands' lines: `Io.out` / `Io.err` (ground/io.ts), their JSON: `Io.json`;
 * - the TUI: ui/components/text.tsx, the one Text (Ink's, its string children made safe).
 *
 * So a new direct write to stdout/stderr, a console call, or a Text taken from Ink itself fails
 * here: route it through a sink, or add it below with why it carries no outside string.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/writer.js';

const SOURCE = path.join(ROOT, 'source');

/** The direct writes to a terminal stream there may be, per file, and why each is safe. */
const DIRECT_WRITES: Record<string, {count: number; why: string}> = {
	'ground/io.ts': {
		count: 3,
		why: 'the sinks themselves: safeText per line, safeJson per piece of a document (text/json-chunks.ts)',
	},
	'cli/main.tsx': {
		count: 4,
		why:
			'the help text, the version, a fixed hint and the note of a signal ' +
			'received during a write (its name and an exit code): constants',
	},
	'cli/bin.ts': {
		count: 2,
		why:
			'the one line refusing an old Node: its version and path ' +
			'(process.execPath, the Node the operator ran); the one line when no ' +
			"descriptor is left to load hfx: the path of hfx's own file",
	},
	'ground/interrupts.ts': {count: 1, why: 'a fixed notice naming the signal'},
	'ground/test-pause.ts': {
		count: 1,
		why: 'the test hook announcing its pause point (a name from our code; only with HFX_TEST_PAUSE_AT set)',
	},
	'ui/host.tsx': {count: 2, why: 'the alternate-screen and cursor sequences: constants'},
	'ui/screen/use-screen-keys.ts': {count: 1, why: 'OSC 52: the copied text goes base64-encoded'},
	'backup/progress.ts': {count: 3, why: 'the progress bar (its label through safeText) and JSON progress (safeJson)'},
	'simulator/writer-process.ts': {
		count: 2,
		why: "a test writer's JSON replies and usage line, to its parent through a pipe",
	},
	'simulator/gateway.ts': {
		count: 2,
		why: "the demo gateway's JSON events and usage line, to its parent through a pipe",
	},
};

const WRITE = /\b(?:process\.)?(?:stdout|stderr|stream)\.write\(/g;

function sourceFiles(dir: string): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		return e.isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(e.name) ? [p] : [];
	});
}

const files = sourceFiles(SOURCE).map(file => ({
	file,
	rel: path.relative(SOURCE, file).split(path.sep).join('/'),
	text: fs.readFileSync(file, 'utf8'),
}));

describe('every outside string reaches a terminal through a sink that makes it safe', () => {
	it('writes to stdout/stderr only where listed (the sinks, and constants)', () => {
		const found: Record<string, number> = {};
		for (const {rel, text} of files) {
			const n = text.match(WRITE)?.length ?? 0;
			if (n > 0) {
				found[rel] = n;
			}
		}

		expect(found).toEqual(Object.fromEntries(Object.entries(DIRECT_WRITES).map(([rel, {count}]) => [rel, count])));
	});

	it('never prints through console', () => {
		const offenders = files.filter(({text}) => /\bconsole\.(?:log|error|warn|info|debug)\(/.test(text)).map(f => f.rel);
		expect(offenders).toEqual([]);
	});

	it('renders text in the TUI only through ui/components/text.tsx', () => {
		const offenders: string[] = [];
		for (const {rel, text} of files) {
			if (
				!rel.startsWith('ui/') ||
				rel === 'ui/components/text.tsx' ||
				!/\.tsx?$/.test(rel) ||
				rel.startsWith('ui/ink/')
			) {
				continue;
			}

			if (/import\s*(?:type\s*)?\{[^}]*\b(?:Text|Transform|Static)\b[^}]*\}\s*from\s*'ink'/.test(text)) {
				offenders.push(rel);
			}
		}

		expect(offenders).toEqual([]);
	});

	it('the sinks do use the sanitizer (ground/io.ts, ground/errors.ts refusalLine, the TUI Text, format cells)', () => {
		const text = (rel: string) => files.find(f => f.rel === rel)!.text;
		expect(text('ground/io.ts')).toMatch(/out: line => process\.stdout\.write\(`\$\{safeText\(line\)\}\\n`\)/);
		expect(text('ground/io.ts')).toMatch(/err: line => process\.stderr\.write\(`\$\{safeText\(line\)\}\\n`\)/);
		// The JSON document goes out in pieces (issue #26): each piece made by safeJson, each key too.
		expect(text('ground/io.ts')).toMatch(/json: value => \{\s*writeJson\(value\);/);
		expect(text('ground/io.ts')).toMatch(/const chunks = jsonChunks\(value\);/);
		expect(text('text/json-chunks.ts')).toMatch(/return safeJson\(value, 2\)\.replaceAll/);
		expect(text('text/json-chunks.ts')).toMatch(/\$\{safeJson\(key\)\}: /);
		expect(text('ground/errors.ts')).toMatch(/return safeText\(`hfx: \$\{r\.file\}/);
		expect(text('ui/components/text.tsx')).toContain('return safeText(child)');
		expect(text('text/format.ts')).toMatch(/safeText\(raw\)/);
	});
});
