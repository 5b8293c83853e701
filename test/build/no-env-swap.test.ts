/**
 * No writer passes an option by swapping the process environment (issue #30): an assignment to or
 * a delete of `process.env.X` in repair/ or backup/ is reported, every offender at once.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {codeFiles, linesBreaking} from '../helpers/code-files.js';
import {ROOT} from '../helpers/writer.js';

const SWAP = /(?:delete\s+process\.env\b|process\.env(?:\.\w+|\[[^\]]+\])\s*(?:=(?!=)|\+=|\?\?=|\|\|=))/;

function envSwaps(file: string, text?: string): string[] {
	return linesBreaking(file, line => SWAP.test(line), text);
}

describe('the writers', () => {
	it('never swap process.env to pass an option', () => {
		const offenders = ['repair', 'backup']
			.flatMap(d => codeFiles(path.join(ROOT, 'source', d)))
			.flatMap(f => envSwaps(f));
		expect(offenders).toEqual([]);
	});

	it('the check catches an assignment and a delete, not a read', () => {
		expect(
			envSwaps('x.ts', 'process.env.TMPDIR = dir;\ndelete process.env.TMPDIR;\nconst a = process.env.HOME === b;'),
		).toHaveLength(2);
	});
});
