import fs from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import {NARROW_TEXT, textWidth, widestLine} from '../../source/text/width.js';
import stringWidthLines from 'widest-line';

describe('the narrow-text fast path', () => {
	it('covers only characters string-width measures as one column', () => {
		const covered: string[] = [];
		for (let cp = 0; cp <= 0xff_ff; cp++) {
			const c = String.fromCharCode(cp);
			if (NARROW_TEXT.test(c)) {
				covered.push(c);
				expect([cp.toString(16), stringWidth(c)]).toEqual([cp.toString(16), 1]);
			}
		}

		// The printable ASCII range and the drawn symbols, nothing more.
		expect(covered.length).toBe(95 + 27);
	});

	it('gives the width string-width gives, fast path or not', () => {
		for (const text of [
			'',
			'plain ascii 123',
			'● live · 5.2d ago',
			'› ✗ ROLLBACK RISK — 20 messages…',
			'中文 title',
			'emoji 😀 here',
			'\u001B[31mred\u001B[39m',
			'soft\u00ADhyphen',
			'tab\there',
		]) {
			expect([text, textWidth(text)]).toEqual([text, stringWidth(text)]);
		}
	});

	it("gives each text's widest line as widest-line does (Ink's measure-text measures through it in the bundle)", () => {
		for (const text of [
			'',
			'\n',
			'a\nbcd\n',
			'● live\n中文 title',
			'  ·  x\n😀😀\nabc',
			'soft\u00ADhyphen\n\u001B[31mred\u001B[39m',
		]) {
			expect([text, widestLine(text)]).toEqual([text, stringWidthLines(text)]);
		}
	});

	it("is the very pattern the Ink patch uses in output.js (the frame builder's plain-text path)", () => {
		const entry = createRequire(import.meta.url).resolve('ink');
		const patched = fs.readFileSync(path.join(path.dirname(entry), 'output.js'), 'utf8');
		expect(patched).toContain(`const NARROW_TEXT = ${NARROW_TEXT.toString()};`);
	});
});
