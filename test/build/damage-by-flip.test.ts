/**
 * A test that damages a file flips bytes (helpers/flip-bytes.ts), never writes a constant byte
 * over it: the constant may already be there, and the "damaged" file is then the original, a test
 * failing 1 run in 256 (CI 2026-12-04, a byte of a WAL header's random salt). Every offender in
 * test/ and bench/ is reported at once.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {codeFiles, linesBreaking} from '../helpers/code-files.js';
import {ROOT} from '../helpers/writer.js';

const CONSTANT_BYTE_WRITE = /writeSync\([^;]*Buffer\.from\(\[\s*(?:0x[0-9a-f]+|\d+)\s*\]\)/i;

function constantWrites(file: string, text?: string): string[] {
	return linesBreaking(file, line => CONSTANT_BYTE_WRITE.test(line), text);
}

describe('damage in tests', () => {
	it('is done by flipping bytes, never by writing a constant byte', () => {
		const offenders = ['test', 'bench'].flatMap(d => codeFiles(path.join(ROOT, d))).flatMap(f => constantWrites(f));
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
