/**
 * The ws_orphan_reap zombie (#63207): after a reap, pre-#63219 builds minted a fresh row per
 * message. Told from the rows alone, and told apart from deliberate fresh starts.
 */
import {describe, expect, it} from 'vitest';
import {detectReapChurn, reapChurnAfter, reapChurnFinding} from '../../../source/forensics/rollbacks/reap-churn.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {T0, dmKey, session} from '../../helpers/records.js';

const KEY = dmKey('63207');
const reaped = session({
	id: 'r',
	sessionKey: KEY,
	startedAtRaw: T0,
	endReason: 'ws_orphan_reap',
	messageCountColumn: 40,
});
const turn = (i: number, over: Partial<SessionRecord> = {}) =>
	session({id: `t${i}`, sessionKey: KEY, startedAtRaw: T0 + 1000 + i * 60, messageCountColumn: 2, ...over});

describe('reap churn', () => {
	it('finds the one-turn rows minted after a reaped row, strong from three on', () => {
		const [c] = detectReapChurn([reaped, turn(1), turn(2), turn(3)]);
		expect(c).toMatchObject({
			sessionKey: KEY,
			reapedId: 'r',
			reapedMessages: 40,
			oneTurnRows: ['t1', 't2', 't3'],
			certainty: 'strong',
		});
		expect(reapChurnFinding(c!).next).toContain('/resume r');
		expect(detectReapChurn([reaped, turn(1), turn(2)])[0]!.certainty).toBe('weak');
	});

	it('is not one for a single fresh row, a row holding a conversation, or deliberate resets', () => {
		expect(detectReapChurn([reaped, turn(1)])).toEqual([]);
		expect(detectReapChurn([reaped, turn(1), turn(2, {messageCountColumn: 12})])).toEqual([]);
		expect(detectReapChurn([reaped, turn(1, {resetFrom: 'r'}), turn(2, {endReason: 'daily'})])).toEqual([]);
		expect(detectReapChurn([{...reaped, endReason: 'agent_close'}, turn(1), turn(2), turn(3)])).toEqual([]);
	});

	it('lists chats in key order, and after a change judges again only the keys whose rows changed', () => {
		const other = dmKey('1');
		const rows = (key: string, p: string) => [
			{...reaped, id: `${p}r`, sessionKey: key},
			turn(1, {id: `${p}1`, sessionKey: key}),
			turn(2, {id: `${p}2`, sessionKey: key}),
		];
		const all = [...rows(KEY, 'a'), ...rows(other, 'b')];
		const churns = detectReapChurn(all);
		expect(churns.map(c => c.sessionKey)).toEqual([other, KEY].sort());
		const byKey = (key: string) => all.filter(s => s.sessionKey === key);
		expect(reapChurnAfter(churns, new Set(), byKey)).toBe(churns);
		expect(reapChurnAfter(churns, new Set([KEY]), byKey)).toEqual(churns);
		const gone = (key: string) => (key === KEY ? undefined : byKey(key));
		expect(reapChurnAfter(churns, new Set([KEY]), gone).map(c => c.sessionKey)).toEqual([other]);
		const third = dmKey('2');
		const grown = (key: string) => (key === third ? rows(third, 'c') : byKey(key));
		expect(reapChurnAfter(churns, new Set([third]), grown)).toEqual(detectReapChurn([...all, ...rows(third, 'c')]));
	});
});
