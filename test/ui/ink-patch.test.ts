/**
 * source/ui/ink/ink+6.8.0.patch (applied by `npm install` through patch-package) backports two upstream
 * Ink fixes that ink 6.8, the last Node-20 line, lacks. These tests fail on an unpatched Ink.
 */
import {createRequire} from 'node:module';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import {beforeAll, describe, expect, it} from 'vitest';

type WrapText = (text: string, maxWidth: number, wrapType: string) => string;
type MeasureText = (text: string) => {width: number; height: number};

let wrapText: WrapText;
let measureText: MeasureText;

async function inkModule<T>(file: string): Promise<T> {
	const entry = createRequire(import.meta.url).resolve('ink');
	return (await import(pathToFileURL(path.join(path.dirname(entry), file)).href) as {default: T}).default;
}

beforeAll(async () => {
	wrapText = await inkModule<WrapText>('wrap-text.js');
	measureText = await inkModule<MeasureText>('measure-text.js');
});

function collectGarbage(): void {
	v8.setFlagsFromString('--expose-gc');
	(vm.runInNewContext('gc') as () => void)();
}

describe('the Ink patch', () => {
	it('keeps wrapText results of different texts and widths apart (vadimdemedes/ink#998)', () => {
		expect(wrapText('ab', 12, 'wrap')).toBe('ab');
		// Unpatched, the key 'ab1' + '2' + 'wrap' equals 'ab' + '12' + 'wrap' and returns 'ab'.
		expect(wrapText('ab1', 2, 'wrap')).toBe('ab\n1');
	});

	it('bounds the measureText and wrapText caches (vadimdemedes/ink#986)', () => {
		collectGarbage();
		const before = process.memoryUsage().heapUsed;
		const filler = 'x'.repeat(10_000);
		for (let i = 0; i < 20_000; i++) {
			// 20,000 distinct 10 kB texts: ~400 MB if every one were kept.
			const text = `${i}${filler}`;
			expect(measureText(text).width).toBe(text.length);
			wrapText(text, 20_000, 'truncate');
		}

		collectGarbage();
		const grownMb = (process.memoryUsage().heapUsed - before) / 1e6;
		expect(grownMb).toBeLessThan(120);
	});

	it('still measures what it caches, from either generation', () => {
		expect(measureText('a\nbcd')).toEqual({width: 3, height: 2});
		for (let i = 0; i < 2500; i++) {
			measureText(`filler ${i}`);
		}

		expect(measureText('a\nbcd')).toEqual({width: 3, height: 2});
		expect(measureText('')).toEqual({width: 0, height: 0});
	});
});
