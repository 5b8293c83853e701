/**
 * The README's command reference and key list are the command table and the key table the binary
 * runs on (npm run readme rewrites them): a flag or key added, renamed or removed without the
 * README following fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {commandReference, keyReference, withReferences} from '../../source/cli/reference.js';
import {ROOT} from '../helpers/writer.js';

const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

describe('README reference blocks', () => {
	it('hold exactly what the tables say (run `npm run readme` after changing a command or a key)', () => {
		expect(withReferences(readme)).toBe(readme);
	});

	it('list every command and every documented key', () => {
		expect(commandReference()).toContain('`hfx repair --undo ENTRY`');
		expect(commandReference()).toContain('`--max-age DURATION`');
		expect(keyReference()).toContain('| `/` |');
		expect(readme).toContain(keyReference());
	});
});
