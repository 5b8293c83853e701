/**
 * What the build checks (test/build/) read: the code files of a folder, and the lines of a file that break a rule,
 * each named `path:line: text` so that every offender is reported at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import {ROOT} from './writer.js';

/** Every file under `dir` whose name matches `pattern` (TypeScript by default), folders walked depth first. */
export function codeFiles(dir: string, pattern = /\.tsx?$/): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		return e.isDirectory() ? codeFiles(p, pattern) : pattern.test(e.name) ? [p] : [];
	});
}

/** The lines of `file` (or of `text`, said to be its) for which `breaks` holds, as `path:line: text`. */
export function linesBreaking(
	file: string,
	breaks: (line: string) => boolean,
	text = fs.readFileSync(file, 'utf8'),
): string[] {
	return text
		.split('\n')
		.flatMap((line, i) => (breaks(line) ? [`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : []));
}
