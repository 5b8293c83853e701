/**
 * The suite needs nothing beside the clone: no test names a path outside the repository (the
 * real-Hermes fixtures live in test/fixtures/). A fresh clone's `npm test` must pass alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/writer.js';

function files(dir: string): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		return e.isDirectory() ? files(p) : /\.(ts|tsx|mjs|js)$/.test(e.name) ? [p] : [];
	});
}

/** A path that climbs out of the repository root: '../shared', ROOT + '..', an absolute /work path. */
const OUTSIDE =
	/(['"`])(?:\.\.\/)+shared\b|\bROOT\s*,\s*['"`]\.\.|['"`]\/work\/|import\.meta\.dirname\s*,\s*['"`](?:\.\.\/){3,}/;

describe('the tests are self-contained', () => {
	const self = path.join(ROOT, 'test/build/self-contained.test.ts');
	it('no test reads anything outside the repository (every offender at once)', () => {
		const bad = files(path.join(ROOT, 'test'))
			.filter(f => f !== self)
			.flatMap(file =>
				fs
					.readFileSync(file, 'utf8')
					.split('\n')
					.flatMap((l, i) => (OUTSIDE.test(l) ? [`${path.relative(ROOT, file)}:${i + 1}: ${l.trim()}`] : [])),
			);
		expect(bad).toEqual([]);
	});

	it('the pattern catches the ways a test used to reach ../shared', () => {
		expect(OUTSIDE.test("path.resolve(ROOT, '../shared/fixtures/x')")).toBe(true);
		expect(OUTSIDE.test("fs.copyFileSync('../../shared/fixtures/a.db')")).toBe(true);
		expect(OUTSIDE.test("path.join(ROOT, '..', 'shared')")).toBe(true);
		expect(OUTSIDE.test("path.join(ROOT, 'test/fixtures/hermes-v21-incident')")).toBe(false);
	});
});
