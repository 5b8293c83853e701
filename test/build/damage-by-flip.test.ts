/**
 * A test that damages a file flips bytes (helpers/flip-bytes.ts), never writes a constant byte
 * over it: the constant may already be there, and the "damaged" file is then the original, a test
 * failing 1 run in 256 (CI 2026-12-04, a byte of a WAL header's random salt). Every offender in
 * test/ and bench/ is reported at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/writer.js';

const CONSTANT_BYTE_WRITE = /writeSync\([^;]*Buffer\.from\(\[\s*(?:0x[0-9a-f]+|\d+)\s*\]\)/i;

function files(dir: string): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		return e.isDirectory() ? files(p) : /\.tsx?$/.test(e.name) ? [p] : [];
	});
}

function constantWrites(file: string, text = fs.readFileSync(file, 'utf8')): string[] {
	return text
		.split('\n')
		.flatMap((line, i) =>
			CONSTANT_BYTE_WRITE.test(line) ? [`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [],
		);
}

describe('damage in tests', () => {
	it('is done by flipping bytes, never by writing a constant byte', () => {
		const offenders = ['test', 'bench'].flatMap(d => files(path.join(ROOT, d))).flatMap(f => constantWrites(f));
		expect(offenders).toEqual([]);
	});

	it('the check catches the write CI failed on, not a flip or a longer write', () => {
		const text = [
			// split so that this file does not match itself
			`fs.writeSync(fd, Buffer.from(${'[0xa5]'}), 0, 1, 17);`,
			`fs.writeSync(fd, Buffer.from(${'[255]'}), 0, 1, 40);`,
			'fs.writeSync(fd, b, 0, 1, o);',
			"fs.writeSync(fd, Buffer.from('abc'));",
		].join('\n');
		expect(constantWrites('x.ts', text)).toHaveLength(2);
	});
});
