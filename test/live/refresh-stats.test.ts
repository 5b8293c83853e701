/**
 * The refresh timings for diagnostics (source/live/refresh-stats.ts): off unless a file is named; a refresh read
 * through to its close keeps one time per phase; one cut short (a failed read, a retried reading in place) keeps none.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {RefreshStats} from '../../source/live/refresh-stats.js';

function refresh(stats: RefreshStats, marks: number): void {
	stats.begin(performance.now());
	for (let i = 0; i < marks; i++) {
		stats.mark();
	}

	stats.end();
}

describe('refresh timings', () => {
	it('are off unless a file is named', () => {
		expect(RefreshStats.fromEnv(undefined)).toBeNull();
		expect(RefreshStats.fromEnv('')).toBeNull();
	});

	it('keep the phases of each refresh read through to its close, and none of one cut short', () => {
		const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-stats-')), 'stats.jsonl');
		const stats = RefreshStats.fromEnv(file)!;
		refresh(stats, 4);
		refresh(stats, 4);
		refresh(stats, 2);
		refresh(stats, 6);
		stats.write(3);
		const line = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<
			string,
			{count: number; sumMs: number; cpuSumMs: number}
		>;
		for (const phase of ['open', 'rows', 'model', 'close', 'total']) {
			expect(line[phase]!.count).toBe(2);
		}

		const parts = line.open!.sumMs + line.rows!.sumMs + line.model!.sumMs + line.close!.sumMs;
		expect(Math.abs(line.total!.sumMs - parts)).toBeLessThan(0.1);
		expect(line.total!.cpuSumMs).toBeGreaterThanOrEqual(0);
		expect(line.signatureScans).toBe(3);
	});
});
