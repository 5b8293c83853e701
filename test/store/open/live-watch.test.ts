/**
 * The commit hints: a storm of hints (an agent committing hundreds of times a second) gets checks at most one per
 * `minIntervalMs`, and a lone hint is still checked after the debounce alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {CommitHints} from '../../../source/store/open/live-watch.js';

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

async function checksOver(ms: number, minIntervalMs: number): Promise<number[]> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-hints-'));
	const starts: number[] = [];
	// A poll every millisecond: a hint as often as the event loop can give one.
	const hints = new CommitHints({pollMs: 1, debounceMs: 1, watch: false, minIntervalMs}, () => {
		starts.push(performance.now());
		return false;
	});
	try {
		hints.start(path.join(dir, 'state.db'), 'state.db');
		await sleep(ms);
	} finally {
		hints.close();
		fs.rmSync(dir, {recursive: true, force: true});
	}

	return starts;
}

describe('commit hints', () => {
	it('check at most once per minIntervalMs however many hints come in', async () => {
		const starts = await checksOver(400, 50);
		expect(starts.length).toBeGreaterThanOrEqual(2);
		expect(starts.length).toBeLessThanOrEqual(9);
		for (let i = 1; i < starts.length; i++) {
			expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(45);
		}
	});

	it('without a floor, check after each debounce', async () => {
		expect((await checksOver(400, 0)).length).toBeGreaterThan(12);
	});
});

describe('commit hints from the folder', () => {
	it('a write to a file named like the store is a hint; one to another file is not', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-hints-'));
		const db = path.join(dir, 'state.db');
		fs.writeFileSync(`${db}-wal`, '');
		fs.writeFileSync(path.join(dir, 'other.txt'), '');
		let checks = 0;
		// No poll within the test: only the folder's events can ask for a check.
		const hints = new CommitHints({pollMs: 60_000, debounceMs: 1, watch: true}, () => {
			checks++;
			return false;
		});
		try {
			hints.start(db, 'state.db');
			await sleep(100);
			const atStart = checks;
			fs.appendFileSync(path.join(dir, 'other.txt'), 'x');
			await sleep(150);
			expect(checks).toBe(atStart);
			fs.appendFileSync(`${db}-wal`, 'x');
			await sleep(150);
			expect(checks).toBe(atStart + 1);
		} finally {
			hints.close();
			fs.rmSync(dir, {recursive: true, force: true});
		}
	});
});

describe('commit hints while the owner commits without pause', () => {
	it('a check that found commits asks for the next at the floor, unwatched; one finding none watches', async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-hints-'));
		const db = path.join(dir, 'state.db');
		fs.writeFileSync(`${db}-wal`, '');
		const starts: number[] = [];
		const watchingAt: boolean[] = [];
		let moving = 4;
		// No poll within the test: a check comes from the folder's events, or from the timer of a busy owner.
		const hints = new CommitHints({pollMs: 60_000, debounceMs: 1, minIntervalMs: 40, watch: true}, () => {
			starts.push(performance.now());
			watchingAt.push(hints.watching);
			return moving-- > 0;
		});
		try {
			hints.start(db, 'state.db');
			// The start's check finds commits; so do the three after it, then none: one more check, then quiet.
			await sleep(400);
			expect(starts).toHaveLength(6);
			expect(watchingAt.slice(1, 5)).toEqual([false, false, false, false]);
			for (let i = 1; i < starts.length; i++) {
				expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(35);
			}

			expect(hints.watching).toBe(true);
			// Watched again: a write to the -wal is a hint.
			fs.appendFileSync(`${db}-wal`, 'x');
			await sleep(150);
			expect(starts).toHaveLength(7);
		} finally {
			hints.close();
			fs.rmSync(dir, {recursive: true, force: true});
		}
	});
});
