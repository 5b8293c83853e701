/**
 * The suite needs nothing beside the clone: no test, bench, script or CI step names a path outside the repository
 * (the real-Hermes fixtures live in test/fixtures/). A fresh clone's `npm test` and `.ci/run` must pass alone.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {codeFiles, linesBreaking} from '../helpers/code-files.js';
import {ROOT} from '../helpers/writer.js';

/** A path that climbs out of the repository root: '../shared', ROOT + '..', an absolute /work path. */
const OUTSIDE =
	/(?:^|[\s'"`=(])(?:\.\.\/)+shared\b|\bROOT\s*,\s*['"`]\.\.|(?:^|[\s'"`=])\/work\/|import\.meta\.dirname\s*,\s*['"`](?:\.\.\/){3,}/;

describe('the tests are self-contained', () => {
	const self = path.join(ROOT, 'test/build/self-contained.test.ts');
	it('no test, bench, script or CI step reads anything outside the repository (every offender at once)', () => {
		const bad = ['test', 'bench', 'scripts', '.ci']
			.flatMap(d => codeFiles(path.join(ROOT, d), /\.(ts|tsx|mjs|js|sh)$|^run$/))
			.filter(f => f !== self)
			.flatMap(file => linesBreaking(file, l => OUTSIDE.test(l)));
		expect(bad).toEqual([]);
	});

	it('the pattern catches the ways a test used to reach ../shared', () => {
		expect(OUTSIDE.test("path.resolve(ROOT, '../shared/fixtures/x')")).toBe(true);
		expect(OUTSIDE.test("fs.copyFileSync('../../shared/fixtures/a.db')")).toBe(true);
		expect(OUTSIDE.test("path.join(ROOT, '..', 'shared')")).toBe(true);
		// A shell step (.ci/run, scripts/ci): the path unquoted.
		expect(OUTSIDE.test('cp -r ../shared/fixtures test/')).toBe(true);
		expect(OUTSIDE.test('FIX=../../shared/fixtures')).toBe(true);
		expect(OUTSIDE.test('cp /work/shared/fixtures/a.db .')).toBe(true);
		expect(OUTSIDE.test("path.join(ROOT, 'test/fixtures/hermes-v21-incident')")).toBe(false);
	});
});
