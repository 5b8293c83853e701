/**
 * The watch's follower (commands/shared/watch-follower.ts) on a store a second process writes: the per-reading work
 * follows what changed. While commits add messages, every session row's signature (a scan of the whole sessions
 * table) is compared at most once a minute, not at every reading; a commit that changes a row in place and adds no
 * message is still compared, and seen, at the next reading.
 */
import path from 'node:path';
import {afterEach, describe, expect, it, vi} from 'vitest';
import {SIGNATURE_EVERY_MS, StoreFollower} from '../../../source/commands/shared/watch-follower.js';
import {T0} from '../../fixtures/scenarios.js';
import {WriterProcess} from '../../helpers/writer.js';
import {scratch} from '../../helpers/scratch.js';

const {dir, cleanups} = scratch('hfx-watch-follower-');
afterEach(() => vi.restoreAllMocks());

describe('StoreFollower', () => {
	it('compares every row signature once a minute while messages come, and an in-place change at once', async () => {
		const db = path.join(dir, 'state.db');
		const w = new WriterProcess(db);
		await w.started();
		cleanups.push(() => w.kill());
		const chat = await w.create({
			source: 'telegram',
			userId: 'u1',
			sessionKey: 'agent:main:telegram:dm:1',
			chatId: '1',
			chatType: 'dm',
			startedAt: T0,
		});
		const quiet = await w.create({
			source: 'discord',
			userId: 'u2',
			sessionKey: 'agent:main:discord:dm:2',
			chatId: '2',
			chatType: 'dm',
			startedAt: T0 + 1,
		});
		await w.send({op: 'conversation', id: chat, count: 4, from: T0 + 2, to: T0 + 20});
		await w.send({op: 'conversation', id: quiet, count: 2, from: T0 + 3, to: T0 + 10});
		let clock = Date.now();
		vi.spyOn(Date, 'now').mockImplementation(() => clock);
		const follower = new StoreFollower({path: db, owner: 'default', label: 'default'}, 3600);
		cleanups.push(() => follower.close());
		expect((await follower.read([], clock / 1000)).result.ok).toBe(true);

		// A reading every 15 s, each after commits that add messages: one scan in 75 s (the TUI's 5 s made it five).
		const readings = Math.floor(SIGNATURE_EVERY_MS / 15_000) + 1;
		for (let i = 1; i <= readings; i++) {
			clock += 15_000;
			await w.send({op: 'conversation', id: chat, count: 2, from: T0 + 20 + i * 10, to: T0 + 25 + i * 10});
			const r = await follower.read([], clock / 1000);
			expect(r.result.ok && r.result.analysis.byId.get(chat)?.newestMessageAt).toBeCloseTo(T0 + 25 + i * 10, 3);
		}

		expect(follower.signatureScans).toBe(1);

		// The quiet chat ends and nothing else is written: compared at the next reading, 15 s on.
		await w.send({op: 'end', id: quiet, at: T0 + 500, reason: 'user_exit'});
		clock += 15_000;
		const ended = await follower.read([], clock / 1000);
		expect(follower.signatureScans).toBe(2);
		expect(ended.result.ok && ended.result.analysis.byId.get(quiet)?.endReason).toBe('user_exit');
	});

	it('starts no header child for a store unchanged since the last reading, and reads it after a commit', async () => {
		const db = path.join(dir, 'quiet.db');
		const w = new WriterProcess(db);
		await w.started();
		cleanups.push(() => w.kill());
		const id = await w.create({source: 'telegram', userId: 'u1', sessionKey: 'k:1', chatId: '1', startedAt: T0});
		await w.send({op: 'conversation', id, count: 3, from: T0 + 1, to: T0 + 9});
		const follower = new StoreFollower({path: db, owner: 'quiet', label: 'quiet'}, 3600);
		cleanups.push(() => follower.close());
		const first = await follower.read([], Date.now() / 1000);
		expect(first.files?.shm?.consistent).toBe(true);
		const once = follower.headerChildren;
		expect(once).toBe(2);
		// Past the racy-stat margin (2 s): a file changed within it (the writes; the -wal's ctime, which our first read
		// connection moves) is read again whatever its stamp says.
		await new Promise(resolve => setTimeout(resolve, 2200));
		for (let i = 0; i < 3; i++) {
			const r = await follower.read([], Date.now() / 1000);
			expect(r.files?.shm).toEqual(first.files?.shm);
			expect(r.files?.dbHeader).toEqual(first.files?.dbHeader);
		}

		expect(follower.headerChildren).toBe(once);
		await w.send({op: 'conversation', id, count: 2, from: T0 + 10, to: T0 + 12});
		const after = await follower.read([], Date.now() / 1000);
		expect(follower.headerChildren).toBe(2 * once);
		expect(after.files?.shm?.mxFrame).toBeGreaterThan(first.files?.shm?.mxFrame ?? 0);
	});
});
