/**
 * The walk's loader hook (scripts/dev/walk.mjs runs `node --import` on this file): each module of the unbundled build
 * (dist/**\/*.js, never the bundle, its chunks or the test hooks of ground/test-pause.js) gets, at its end, one line
 * per
 * top-level function, class and plain object it declares, wrapping it with the module's room (walk-runtime.mjs).
 * tsc writes every top-level declaration at the start of a line, so a line-wise look finds them; a top-level
 * `const f = (…) =>` becomes `let` to be wrapped.
 */
import path from 'node:path';
import {register} from 'node:module';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {isMainThread} from 'node:worker_threads';

const DIST = pathToFileURL(path.resolve(fileURLToPath(import.meta.url), '../../../dist')).href;
const RUNTIME = new URL('walk-runtime.mjs', import.meta.url).href;

/** The room of a module: its folder under dist/; a root file is `cli` (the command line) or `ground`. */
export function roomOf(url) {
	const rel = url.slice(DIST.length + 1);
	const dir = path.posix.dirname(rel);
	if (dir !== '.') {
		return dir;
	}

	return /^(cli|bin)/.test(rel) ? 'cli' : 'ground';
}

const FUNCTION = /^(?:export )?(?:async )?function (\w+)\(/;
const ARROW = /^(export )?const (\w+) = (?:async )?(?:function\b|\([^)]*\) =>|\w+ =>)/;
const CLASS = /^(?:export )?(?:abstract )?class (\w+)\b/;
const OBJECT = /^(?:export )?const (\w+) = \{/;

/** The module's source with its wrapping lines appended. */
export function instrument(source, url) {
	const where = JSON.stringify(roomOf(url));
	const file = JSON.stringify(path.posix.basename(url));
	const tail = [`import * as __walk from ${JSON.stringify(RUNTIME)};`];
	const lines = source.split('\n').map(line => {
		const arrow = ARROW.exec(line);
		const name = FUNCTION.exec(line)?.[1] ?? arrow?.[2];
		if (name) {
			tail.push(`${name} = __walk.fn(${where}, ${file}, '${name}', ${name});`);
			return arrow ? line.replace(/^(export )?const /, '$1let ') : line;
		}

		const kind = CLASS.exec(line) ? 'cls' : OBJECT.exec(line) ? 'obj' : null;
		if (kind) {
			const n = (CLASS.exec(line) ?? OBJECT.exec(line))[1];
			tail.push(`__walk.${kind}(${where}, ${file}, '${n}', ${n});`);
		}

		return line;
	});
	return `${lines.join('\n')}\n${tail.join('\n')}\n`;
}

export async function load(url, context, next) {
	const loaded = await next(url, context);
	// Not the bundle or its chunks, and not the test hooks (ground/test-pause.js: a no-op unless a test sets its
	// variable).
	const skipped = /\/(hfx[-.][^/]*|ground\/test-pause\.js)$/.test(url);
	if (!url.startsWith(`${DIST}/`) || !url.endsWith('.js') || skipped || loaded.format !== 'module') {
		return loaded;
	}

	return {...loaded, source: instrument(String(loaded.source), url), shortCircuit: true};
}

if (isMainThread) {
	register(import.meta.url);
}
