import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {flipBytes} from './flip-bytes.js';
import {scratch} from './scratch.js';

const {dir} = scratch('hfx-flip-');

describe('flipBytes', () => {
	it('changes every chosen byte whatever it held, and only those', () => {
		const file = path.join(dir, 'f.bin');
		const before = Buffer.from(Array.from({length: 256}, (_, i) => i));
		fs.writeFileSync(file, before);
		const offsets = before.map((_, i) => i);
		flipBytes(
			file,
			[...offsets].filter(i => i % 2 === 0),
		);
		const after = fs.readFileSync(file);
		for (let i = 0; i < 256; i++) {
			expect(after[i] !== before[i], `byte ${i}`).toBe(i % 2 === 0);
		}
	});

	it('refuses an offset past the end rather than growing the file', () => {
		const file = path.join(dir, 'g.bin');
		fs.writeFileSync(file, Buffer.alloc(4));
		expect(() => flipBytes(file, [4])).toThrow(/no byte at 4/);
		expect(fs.statSync(file).size).toBe(4);
	});
});
