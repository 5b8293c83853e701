/**
 * No ICU formatter in hfx's code (issue #26, the TUI's RSS): the first `toLocaleString`, `Intl.NumberFormat`,
 * `Intl.DateTimeFormat` or `localeCompare` a process runs makes V8 look up every locale ICU ships, and ~2-5 MB of ICU's
 * data (inside the node binary) stays resident for the life of the process. The Files pane's byte counts did it in the
 * following TUI (5.5 MB of ICU data resident, against 0.96 MB without). Numbers are grouped by text/format.ts
 * `grouped`, strings compared by code unit; `Intl.Segmenter` (graphemes, 0.6 MB, built lazily by text/segmenter.ts)
 * is the one ICU service kept.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {codeFiles, linesBreaking} from '../helpers/code-files.js';
import {ROOT} from '../helpers/writer.js';

const ICU_FORMATTER =
	/\.(?:toLocaleString|toLocaleDateString|toLocaleTimeString|localeCompare)\(|\bIntl\.(?!Segmenter\b|SegmenterOptions\b)\w+/;

function icuFormatters(file: string, text?: string): string[] {
	return linesBreaking(file, line => ICU_FORMATTER.test(line) && !/^\s*(?:\*|\/\/)/.test(line), text);
}

describe("hfx's code", () => {
	it('builds no ICU formatter (grouped numbers and code-unit order instead)', () => {
		expect(codeFiles(path.join(ROOT, 'source')).flatMap(f => icuFormatters(f))).toEqual([]);
	});

	it('the check catches each formatter, not the segmenter or a comment', () => {
		const text = [
			"n.toLocaleString('en-US')",
			'a.localeCompare(b)',
			'new Intl.NumberFormat()',
			'Intl.DateTimeFormat().resolvedOptions()',
			'd.toLocaleDateString()',
			'new Intl.Segmenter(undefined, options as Intl.SegmenterOptions)',
			' * toLocaleString builds an ICU formatter',
		].join('\n');
		expect(icuFormatters('x.ts', text)).toHaveLength(5);
	});
});
