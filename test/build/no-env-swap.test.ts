/**
 * No writer passes an option by swapping the process environment (issue #30): an assignment to or
 * a delete of `process.env.X` in repair/ or backup/ is reported, every offender at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/writer.js';

const SWAP = /(?:delete\s+process\.env\b|process\.env(?:\.\w+|\[[^\]]+\])\s*(?:=(?!=)|\+=|\?\?=|\|\|=))/;

function files(dir: string): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		return e.isDirectory() ? files(p) : /\.tsx?$/.test(e.name) ? [p] : [];
	});
}

function envSwaps(file: string, text = fs.readFileSync(file, 'utf8')): string[] {
	return text
		.split('\n')
		.flatMap((line, i) => (SWAP.test(line) ? [`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : []));
}

describe('the writers', () => {
	it('never swap process.env to pass an option', () => {
		const offenders = ['repair', 'backup'].flatMap(d => files(path.join(ROOT, 'source', d))).flatMap(f => envSwaps(f));
		expect(offenders).toEqual([]);
	});

	it('the check catches an assignment and a delete, not a read', () => {
		expect(
			envSwaps('x.ts', 'process.env.TMPDIR = dir;\ndelete process.env.TMPDIR;\nconst a = process.env.HOME === b;'),
		).toHaveLength(2);
	});
});
