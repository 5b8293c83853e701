/**
 * Every file hfx creates goes through source/ground/safe-create.ts (issue 29, class 1): no other source
 * file opens a file for writing by name, writes one whole by name, appends by name, copies one, or
 * opens a write stream on a path. (A write to a descriptor the helper returned is fine.) A new
 * writer that bypasses the helper fails here, naming the file and the line.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/writer.js';

const SOURCE = path.join(ROOT, 'source');
const HELPER = 'ground/safe-create.ts';

/** What creates or opens a file for writing by its name. */
const CREATORS = [
	/\b(?:writeFileSync|appendFileSync|copyFileSync|writeFile|appendFile|copyFile)\s*\((?!\s*(?:fd|out)\b)/,
	/\bcreateWriteStream\s*\(\s*(?!'')/,
	/\bopenSync\s*\([^)]*(?:['"][wa]x?\+?['"]|O_CREAT|O_WRONLY|O_RDWR)/,
	/\bpromises\.open\s*\(/,
];

/** The few that stay outside the helper, each with why it cannot plant-follow. */
const ALLOWED = new Map<string, string>([
	[
		'commands/demo.ts: mkdtempSync',
		'mkdtemp makes a new folder of a random name exclusively (mode 0700); a link there makes it fail, never followed',
	],
]);

function sourceFiles(dir: string): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		if (e.isDirectory()) {
			return p === path.join(SOURCE, 'ui', 'ink') ? [] : sourceFiles(p);
		}

		return /\.tsx?$/.test(e.name) ? [p] : [];
	});
}

/** `file:line: text` of every creator outside the helper, comments skipped. */
function creatorsIn(rel: string, text: string): string[] {
	if (rel === HELPER) {
		return [];
	}

	return text.split('\n').flatMap((line, i) => {
		if (/^\s*(?:\/\/|\*|\/\*)/.test(line) || !CREATORS.some(re => re.test(line))) {
			return [];
		}

		return [`${rel}:${i + 1}: ${line.trim()}`];
	});
}

describe('one creator of files', () => {
	it('no source file but ground/safe-create.ts creates or opens a file for writing by name', () => {
		const found = sourceFiles(SOURCE).flatMap(f => creatorsIn(path.relative(SOURCE, f), fs.readFileSync(f, 'utf8')));
		expect(found).toEqual([]);
	});

	it('the only mkdtemp is the allowed one', () => {
		const found = sourceFiles(SOURCE).flatMap(f => {
			const rel = path.relative(SOURCE, f);
			return /\bmkdtemp(?:Sync)?\s*\(/.test(fs.readFileSync(f, 'utf8')) ? [`${rel}: mkdtempSync`] : [];
		});
		expect(found.filter(f => !ALLOWED.has(f))).toEqual([]);
	});

	it('catches a writer that bypasses the helper (the textfile writer as it was)', () => {
		// biome-ignore lint/suspicious/noTemplateCurlyInString: source text under test, a template in it
		const before = 'const temp = `.${name}.${process.pid}.tmp`;\n\t\tfs.writeFileSync(temp, text, {mode: 0o644});\n';
		expect(creatorsIn('commands/textfile.ts', before)).toEqual([
			'commands/textfile.ts:2: fs.writeFileSync(temp, text, {mode: 0o644});',
		]);
		expect(creatorsIn('backup/create/lock.ts', "const fd = fs.openSync(file, 'wx', 0o600);")).toHaveLength(1);
		expect(creatorsIn('ui/host.tsx', 'fs.appendFileSync(trace, line);')).toHaveLength(1);
		expect(creatorsIn('backup/create/zip-writer.ts', "const out = fs.createWriteStream('', {fd});")).toEqual([]);
		expect(
			creatorsIn('store/read/load.ts', 'fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);'),
		).toEqual([]);
	});
});
