/**
 * The --json document of a refusal (report/refusal-json.ts): the refusal's own four fields under
 * `error`, nothing else (no exit code, no message, no stack).
 */
import {describe, expect, it} from 'vitest';
import {FailClosed} from '../../source/ground/errors.js';
import {refusalJson} from '../../source/report/refusal-json.js';

describe('refusalJson', () => {
	it('carries file, kind, reason and next under error, and nothing of the Error itself', () => {
		const refusal = new FailClosed({
			file: '/h/state.db',
			kind: 'zero-byte-main-file',
			reason: 'the main file is 0 bytes with a -wal beside it',
			next: 'copy the three files first',
			exitCode: 2,
			cause: new Error('inner'),
		});
		const doc = refusalJson(refusal);
		expect(doc).toEqual({
			error: {
				file: '/h/state.db',
				kind: 'zero-byte-main-file',
				reason: 'the main file is 0 bytes with a -wal beside it',
				next: 'copy the three files first',
			},
		});
		expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
		expect(JSON.stringify(doc)).not.toMatch(/stack|inner|exitCode/);
	});
});
