/**
 * Compression rotations on a store a second process writes, in the gateway simulator's commit
 * order (end the parent `compression`; create the continuation; move the routing entry; then the
 * next messages): through 5 rotations the live model never shows a rollback risk at any commit,
 * and `hfx scan` in the middle of one (parent ended, continuation not written) exits 0.
 */
import {describe, expect, it} from 'vitest';
import {LiveStore} from '../../source/live/live.js';
import {T0} from '../fixtures/scenarios.js';
import {hfx} from '../helpers/cli.js';
import {writtenStore} from '../helpers/writer.js';

const KEY = 'agent:main:discord:group:9001';
const identity = {
	source: 'discord',
	userId: 'u-bob',
	sessionKey: KEY,
	chatId: '9001',
	chatType: 'group',
	displayName: '#ops',
};
const store = writtenStore('rotation');

describe('compression rotations written live', () => {
	it('never show a rollback risk through 5 rotations, at any commit', async () => {
		let current = await store.writer.create({...identity, startedAt: T0});
		await store.writer.send({op: 'routing', key: KEY, id: current, at: T0});
		await store.writer.send({op: 'conversation', id: current, count: 6, from: T0 + 5, to: T0 + 60});
		const live = LiveStore.open({path: store.db, owner: 'default', label: 'rotation'}, {watch: false});
		try {
			const verdicts: string[] = [];
			const check = (step: string) => {
				expect(live.refresh(true), step).toBe(true);
				const a = live.model.analysis;
				const chat = a.routing.find(r => r.sessionKey === KEY)!;
				verdicts.push(`${step}: ${chat.rollbackRiskReason ?? 'resumes the newest'}`);
				expect(chat.rollbackRisk, `${step}: ${chat.rollbackRiskReason}`).toBe(false);
				expect(
					a.findings.filter(f => f.kind === 'rollback-risk'),
					step,
				).toEqual([]);
			};

			for (let i = 0; i < 5; i++) {
				const at = T0 + 100 * (i + 1);
				await store.writer.send({op: 'end', id: current, at, reason: 'compression'});
				check(`rotation ${i + 1}, parent ended`);
				const next = await store.writer.create({...identity, parentSessionId: current, startedAt: at + 1});
				check(`rotation ${i + 1}, continuation written`);
				await store.writer.send({op: 'routing', key: KEY, id: next, at: at + 1});
				check(`rotation ${i + 1}, entry moved`);
				await store.writer.send({op: 'conversation', id: next, count: 2, from: at + 10, to: at + 20});
				check(`rotation ${i + 1}, next messages`);
				current = next;
			}

			// The rotation's in-between commits were seen (not folded into one refresh).
			expect(verdicts.filter(v => /rotation is under way/.test(v))).toHaveLength(5);
		} finally {
			live.close();
		}
	});

	it('hfx scan in the middle of a rotation reports no rollback risk and exits 0', async () => {
		const before = hfx(['scan', '--db', store.db, '--json']);
		expect(before.code, before.stderr).toBe(0);
		const tip = (
			JSON.parse(before.stdout) as {routing: Array<{sessionKey: string; restartResolvesTo: string}>}
		).routing.find(r => r.sessionKey === KEY)!.restartResolvesTo;
		await store.writer.send({op: 'end', id: tip, at: T0 + 5000, reason: 'compression'});
		const mid = hfx(['scan', '--db', store.db]);
		expect(mid.code, mid.stdout + mid.stderr).toBe(0);
		expect(mid.stdout).toContain('0 chats at rollback risk');
		expect(mid.stdout).toContain('✓ Healthy');
	});
});
