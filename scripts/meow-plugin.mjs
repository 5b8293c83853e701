/**
 * The bin's rewrites of meow (esbuild plugins; scripts/bundle.mjs applies them to dist/hfx.js
 * only: the unbundled build, dist/*.js, and so the unit tests, keep meow as published).
 *
 * 1. options.js imports read-package-up and normalize-package-data (with spdx, semver and
 *    hosted-git-info: about half of meow's 245 KB) to find and normalise the caller's
 *    package.json. hfx always passes meow its own `pkg` and never reads `result.pkg`, so neither
 *    is ever called; stubbing the two imports lets esbuild drop that code from the bundle
 *    (meow's share of a start went from ~30 ms to ~17 ms).
 * 2. dependencies.js: each `\p{…}` regex (a literal or a `new RegExp`) of camelcase and
 *    decamelize becomes a meowRegExp call, which runs it as its ASCII twin on ASCII text
 *    (scripts/meow-regexp.mjs says why, what is kept and what was measured).
 * Both check what they rewrite and fail the build if meow changed under them.
 */
import fs from 'node:fs';
import {fileURLToPath} from 'node:url';

const IMPORT = "import { a as readPackageUpSync, n as normalizePackageData } from './dependencies.js';";

const EXPECTED = {literals: 9, constructors: 9};

/** A regex literal (body, flags) right after a token a regex may follow. */
const REGEX_LITERAL = /(?<=[=(,:!&|?;{}[]\s*)\/((?:[^/\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])+)\/([dgimsuyv]*)/g;

/**
 * dependencies.js with each `\p{…}` regex literal and each `new RegExp(` turned into a
 * meowRegExp call; throws if a `\p{` is left outside one.
 */
export function rewriteUnicodeRegExps(code) {
	let literals = 0;
	let constructors = 0;
	const rewritten = code
		.replace(REGEX_LITERAL, (literal, body, flags) => {
			if (!/\\[pP]\{/.test(body)) {
				return literal;
			}

			literals++;
			return `meowRegExp(${JSON.stringify(body)}, ${JSON.stringify(flags)})`;
		})
		.replace(/\bnew RegExp\(/g, () => {
			constructors++;
			return 'meowRegExp(';
		});
	const uncovered = rewritten.split('\n').filter(line => /\\[pP]\{/.test(line) && !line.includes('meowRegExp('));
	// What meow 14.1.0 holds, read line by line: another count is another file, to be read again
	// (a `\p{` regex in a string or a comment would be rewritten too).
	if (literals !== EXPECTED.literals || constructors !== EXPECTED.constructors || uncovered.length > 0) {
		throw new Error(`meow's dependencies.js has ${literals} \\p{ regex literals and ${constructors} new RegExp (meow 14.1.0: ${EXPECTED.literals} and ${EXPECTED.constructors}), ${uncovered.length} left unrewritten (${uncovered[0]?.trim().slice(0, 80) ?? 'none'}): review scripts/meow-plugin.mjs for this meow version`);
	}

	return {code: rewritten, literals, constructors};
}

const HELPER = fileURLToPath(new URL('meow-regexp.mjs', import.meta.url));

export const meowPlugin = {
	name: 'hfx-meow',
	setup(build) {
		build.onLoad({filter: /[\\/]meow[\\/]build[\\/]options\.js$/}, async args => {
			const source = await fs.promises.readFile(args.path, 'utf8');
			if (!source.includes(IMPORT)) {
				throw new Error(`meow's options.js no longer imports "${IMPORT}": review scripts/meow-plugin.mjs for this meow version`);
			}

			const stubs = 'const readPackageUpSync = () => undefined;\nconst normalizePackageData = () => {\n\tthrow new Error(\'hfx passes meow its pkg and never reads result.pkg\');\n};';
			return {contents: source.replace(IMPORT, stubs), loader: 'js'};
		});
		build.onLoad({filter: /[\\/]meow[\\/]build[\\/]dependencies\.js$/}, async args => {
			const {code} = rewriteUnicodeRegExps(await fs.promises.readFile(args.path, 'utf8'));
			return {contents: `import {meowRegExp} from ${JSON.stringify(HELPER)};\n${code}`, loader: 'js'};
		});
	},
};
