/**
 * The bin's rewrite of meow's `\p{…}` regexes (scripts/meow-plugin.mjs, scripts/meow-regexp.mjs)
 * must not change what meow reads: each rewritten regex matches as the original does, on ASCII
 * text (through its ASCII twin) and on any other (through the original), and meow bundled with
 * the rewrite parses the same words into the same flags as meow bundled as published.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {spawnSync} from 'node:child_process';
import {type Plugin, build} from 'esbuild';
import {afterAll, describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/writer.js';
import {ASCII_MEMBERS, asciiTwin as twinOf, meowRegExp as make} from '../../scripts/meow-regexp.mjs';
import {meowPlugin, rewriteUnicodeRegExps} from '../../scripts/meow-plugin.mjs';

const DEPENDENCIES = path.join(ROOT, 'node_modules/meow/build/dependencies.js');

/** The `\p{…}` patterns the rewrite turned into meowRegExp calls, with their flags. */
function rewrittenPatterns(): Array<[string, string]> {
	const {code} = rewriteUnicodeRegExps(fs.readFileSync(DEPENDENCIES, 'utf8'));
	return [...code.matchAll(/meowRegExp\(("(?:[^"\\]|\\.)*"), "([a-z]*)"\)/g)].map(m => [JSON.parse(m[1]!) as string, m[2]!]);
}

/** Camel-case and kebab-case words, digits, separators; then letters outside ASCII. */
const ASCII_TEXTS = ['', 'a', 'Z', 'json', 'dryRun', 'dry-run', 'olderThan2Days', 'ipv4Addr', 'fooBAR', 'ABCDef', 'XMLHttpRequest', 'a_b.c d', '__proto', 'x2y', '2fast', 'A1B2', '--', '-x', 'ID', 'sessionId', 'I'];
const OTHER_TEXTS = ['größe', 'Größe', 'naïveMode', 'İstanbul', 'ıd', 'ÆØÅ', 'ǅungla', 'x\u0301y', '١٢٣abc', 'ⅫMode', 'ß', 'café-au-lait', 'Ωmega', '日本語Text', 'a\u{1D400}b'];

/** What a regex does with a text, in every way meow's helpers use one (and split, via the species). */
function behaviour(regex: RegExp, text: string): unknown {
	const fresh = () => {
		regex.lastIndex = 0;
		return regex;
	};

	const execs: unknown[] = [];
	fresh();
	for (let step = 0; step < 8; step++) {
		const match = regex.exec(text);
		execs.push(match && [...match, match.index, regex.lastIndex]);
		if (!match || !regex.global) {
			break;
		}

		if (match[0] === '') {
			regex.lastIndex++;
		}
	}

	return {
		test: fresh().test(text),
		execs,
		replace: text.replace(fresh(), '<$&|$1>'),
		replaceFunction: text.replace(fresh(), (...args: unknown[]) => `[${args.slice(0, -2).join(',')}]`),
		replaceAll: regex.global ? text.replaceAll(fresh(), '<$&>') : null,
		split: text.split(fresh()),
		source: regex.source,
		flags: regex.flags,
	};
}

describe('the ASCII twin of a \\p{…} pattern', () => {
	it('names, for each property it knows, exactly the ASCII characters that have it', () => {
		const ascii = Array.from({length: 128}, (_, code) => String.fromCodePoint(code));
		const names = [...ASCII_MEMBERS.keys()];
		expect(names.length).toBeGreaterThanOrEqual(14);
		for (const name of names) {
			const property = new RegExp(`\\p{${name}}`, 'u');
			const twin = new RegExp(twinOf(`\\p{${name}}`)!, 'u');
			expect(ascii.filter(c => twin.test(c)).join(''), name).toBe(ascii.filter(c => property.test(c)).join(''));
		}
	});

	it.each([
		['[\\p{Lu}]', '[A-Z]'],
		['\\p{Uppercase_Letter}+x', '[A-Z]+x'],
		['([\\p{Alpha}\\p{N}_]|$)', '([A-Za-z0-9_]|$)'],
		['([\\p{Lowercase_Letter}\\d])(\\p{Uppercase_Letter})', '([a-z\\d])([A-Z])'],
		['[^\\p{M}]\\p{M}', '[^][]'],
		['\\\\p{Lu}', '\\\\p{Lu}'],
		['[\\]\\p{Ll}]\\]', '[\\]a-z]\\]'],
	])('%s → %s', (pattern, twin) => {
		expect(twinOf(pattern)).toBe(twin);
	});

	it.each(['\\P{Lu}', '[\\P{Ll}]', '\\p{Script=Latin}', '\\p{Emoji}'])('%s has none: the original runs for every text', pattern => {
		expect(twinOf(pattern)).toBeNull();
		expect(make(pattern, 'u').constructor).toBe(RegExp);
	});
});

describe('each \\p{…} regex of meow, rewritten', () => {
	const patterns = rewrittenPatterns();

	it('covers the case helpers\' nine \\p{…} literals, camelcase\'s and decamelize\'s', () => {
		expect(patterns.map(([p]) => p)).toEqual(expect.arrayContaining(['[\\p{Lu}]', '[\\p{Ll}]', '([\\p{Alpha}\\p{N}_]|$)', '([\\p{Lowercase_Letter}\\d])(\\p{Uppercase_Letter})']));
		expect(patterns.length).toBeGreaterThanOrEqual(9);
	});

	it('matches as the original on ASCII and on other text: test, exec, lastIndex, replace, replaceAll, split', () => {
		const checked = [...patterns, ['[_.\\- ]+([\\p{Alpha}\\p{N}_]|$)', 'gu'], ['\\d+([\\p{Alpha}\\p{N}_]|$)', 'gu']] as Array<[string, string]>;
		for (const [pattern, flags] of checked) {
			const rewritten = make(pattern, flags);
			expect(rewritten).toBeInstanceOf(RegExp);
			expect(rewritten.constructor).not.toBe(RegExp);
			for (const text of [...ASCII_TEXTS, ...OTHER_TEXTS]) {
				expect(behaviour(rewritten, text), `${pattern} on ${JSON.stringify(text)}`).toEqual(behaviour(new RegExp(pattern, flags), text));
			}
		}
	});

	it('fails the build when meow\'s file is not the one read (one regex more, or one fewer)', () => {
		const code = fs.readFileSync(DEPENDENCIES, 'utf8');
		expect(() => rewriteUnicodeRegExps(`${code}\nconst EXTRA = /[\\p{Lu}]/u;`)).toThrow(/review scripts\/meow-plugin\.mjs for this meow version/);
		expect(() => rewriteUnicodeRegExps(code.replace('const UPPERCASE = /[\\p{Lu}]/u;', 'const UPPERCASE = /[A-Z]/u;'))).toThrow(/8 \\p\{ regex literals/);
	});

	it('keeps the original source, so a regex built from .source is rewritten the same way', () => {
		const identifier = make('([\\p{Alpha}\\p{N}_]|$)', 'u');
		const composed = make('[_.\\- ]+' + identifier.source, 'gu');
		expect(composed.source).toBe('[_.\\- ]+([\\p{Alpha}\\p{N}_]|$)');
		expect('über-größe'.replaceAll(composed, (_m, c: string) => c.toUpperCase())).toBe('überGröße');
		expect(make(identifier).flags).toBe('u');
	});

	it('keeps the original where \\p{…} is no property: without the u flag, and with v', () => {
		const text = make('\\p{Lu}', '');
		expect(text.constructor).toBe(RegExp);
		expect(text.test('p{Lu}')).toBe(true);
		expect(make('[\\p{Lu}--[A]]', 'v').constructor).toBe(RegExp);
	});

	it('leaves a pattern without \\p{…} a plain RegExp', () => {
		const plain = make('^--no-(.+)');
		expect(plain.constructor).toBe(RegExp);
		expect(plain.exec('--no-color')?.[1]).toBe('color');
	});
});

describe('meow bundled with the rewrite', () => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-meow-regexp-'));
	afterAll(() => {
		fs.rmSync(dir, {recursive: true, force: true});
	});

	const entry = path.join(dir, 'entry.mjs');
	fs.writeFileSync(entry, `import meow from 'meow';
const words = JSON.parse(process.argv[2]);
const flags = {dryRun: {type: 'boolean'}, olderThan: {type: 'string'}, ipv4Addr: {type: 'string'}, größeMax: {type: 'string'}, naïveMode: {type: 'boolean'}, sessionId: {type: 'string', isMultiple: true}, xmlHTTP: {type: 'boolean'}, maxÄrger: {type: 'string'}};
const result = meow({argv: words, importMeta: import.meta, pkg: {}, flags, allowUnknownFlags: true, autoHelp: false, autoVersion: false, description: false});
console.log(JSON.stringify({input: result.input, flags: result.flags, unnormalized: result.unnormalizedFlags}));
`);

	async function bundle(name: string, plugins: Plugin[]): Promise<string> {
		const outfile = path.join(dir, `${name}.mjs`);
		await build({entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', nodePaths: [path.join(ROOT, 'node_modules')], plugins, logLevel: 'silent'});
		return outfile;
	}

	const WORDS = [
		['--dry-run', '--older-than', '2d', '--ipv4-addr', '10.0.0.1', 'scan'],
		['--größe-max', '3', '--naïve-mode', '--session-id', 'a', '--session-id', 'b', '--max-ärger', 'v', '--foo-über', '--naïve-éclair'],
		['--xml-http', '--İstanbul-Mode', 'x', '--foo-BAR2baz', '--ǅungla-x', '--über-größe=1', '--ABC-def', '--', '--dry-run'],
		['--Dry-Run', '--older_than', '5', '--a.b', 'c', '--x2y', '--2fast', '-h'],
	];

	it.each([['the default locale', {}], ['a Turkish locale (I and ı)', {LC_ALL: 'tr_TR.UTF-8', LANG: 'tr_TR.UTF-8'}]])('parses the same words into the same flags as meow as published, in %s', async (_name, locale) => {
		const published = await bundle('published', []);
		const rewritten = await bundle('rewritten', [meowPlugin]);
		expect(fs.readFileSync(rewritten, 'utf8')).toContain('AsciiFirstRegExp');
		for (const words of WORDS) {
			const run = (file: string) => spawnSync(process.execPath, [file, JSON.stringify(words)], {encoding: 'utf8', env: {...process.env, ...locale}});
			const [a, b] = [run(published), run(rewritten)];
			expect(a.status, a.stderr).toBe(0);
			expect(b.stdout, words.join(' ')).toBe(a.stdout);
		}
	});
});
