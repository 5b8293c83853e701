/**
 * Wrapping never cuts: prose breaks at a space or a separator, a table value keeps every
 * character (its lines joined are the value), and no line is wider than asked.
 */
import {describe, expect, it} from 'vitest';
import {wrapIndented, wrapRow, wrapText} from '../../source/text/wrap.js';
import {textWidth} from '../../source/text/width.js';

describe('wrapText', () => {
	it('keeps a text that fits on one line, as it is', () => {
		expect(wrapText('stop the gateway', 16)).toEqual(['stop the gateway']);
	});

	it('breaks prose at the last space of the line and drops it, never wider than the width', () => {
		const text =
			'stop the gateway and every other Hermes process using this store (pids ' +
			'4242, 4243): a running gateway keeps the old routing';
		const lines = wrapText(text, 30);
		expect(lines.length).toBeGreaterThan(3);
		for (const l of lines) {
			expect(textWidth(l)).toBeLessThanOrEqual(30);
		}

		expect(lines.join(' ')).toBe(text);
	});

	it('wraps a value after its separators, keeping every character (wide ones count two)', () => {
		const value = '{"platform":"telegram","display_name":"Тэкниум 日本語 chat","note":"no spaces lost here"}';
		const lines = wrapText(value, 17, 0, true);
		for (const l of lines) {
			expect(textWidth(l)).toBeLessThanOrEqual(17);
		}

		expect(lines.join('')).toBe(value);
		expect(lines[0]).toBe('{"platform":');
	});

	it("never ends a value's line with a space: it starts the next one, so the lines read back whole", () => {
		const lines = wrapText('"note":"an origin wider than any after cell of it"', 12, 0, true);
		for (const l of lines.slice(0, -1)) {
			expect(l.endsWith(' ')).toBe(false);
		}

		expect(lines.map(l => l.trimEnd()).join('')).toBe('"note":"an origin wider than any after cell of it"');
	});

	it('breaks a word with no separator mid-word rather than cut it', () => {
		expect(wrapText('a'.repeat(25), 10)).toEqual(['a'.repeat(10), 'a'.repeat(10), 'a'.repeat(5)]);
	});

	it('indents continuation lines and keeps them within the width', () => {
		const lines = wrapIndented('  ! the donor 20260807_000000_512d4711 is still open: the repair ends it now', 30, 4);
		expect(lines[1]!.startsWith('    ')).toBe(true);
		for (const l of lines) {
			expect(l.length).toBeLessThanOrEqual(30);
		}
	});
});

describe('wrapRow', () => {
	it('lays cells side by side, each wrapped in its own column', () => {
		const lines = wrapRow([
			{text: 'origin_json', width: 12},
			{text: 'NULL', width: 6},
			{text: 'agent:main:telegram:dm:777001', width: 12},
		]);
		expect(lines).toEqual([
			'origin_json  NULL   agent:main:',
			'                    telegram:dm:',
			'                    777001',
		]);
	});
});
