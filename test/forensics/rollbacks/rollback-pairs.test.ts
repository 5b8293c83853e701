/**
 * Which (orphan, keyed row) pairs the store reads for the rollback signature: from the rows alone.
 */
import {describe, expect, it} from 'vitest';
import {LOCAL_SURFACES} from '../../../source/forensics/routing/orphans.js';
import {rollbackProbePairs} from '../../../source/forensics/rollbacks/rollback-pairs.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {T0, dmKey, session} from '../../helpers/records.js';

const DAY = 86_400;
const keyed = (id: string, over: Partial<SessionRecord> = {}) =>
	session({id, sessionKey: dmKey(id), userId: 'u1', newestMessageAt: T0 + 3 * DAY, ...over});
const orphan = (id: string, over: Partial<SessionRecord> = {}) =>
	session({id, startedAtRaw: T0 + 400, newestMessageAt: T0 + DAY, ...over});

function pairs(sessions: SessionRecord[]): string[] {
	return rollbackProbePairs(sessions, LOCAL_SURFACES).map(p => `${p.orphan.id}>${p.keyed.id}`);
}

describe('rollback probe pairs', () => {
	it('pairs a keyless gateway row with each keyed row of its source written after it fell silent', () => {
		expect(pairs([keyed('k1'), keyed('k2', {source: 'discord'}), orphan('o1')])).toEqual(['o1>k1']);
	});

	it('reads nothing on a store without keyless gateway rows', () => {
		expect(
			pairs([
				keyed('k1'),
				orphan('cli', {source: 'cli'}),
				orphan('tool', {source: 'tool'}),
				orphan('branch', {branchedFrom: 'k1'}),
			]),
		).toEqual([]);
	});

	it('skips keyed rows not written after the orphan, started after it, or of another user or profile', () => {
		expect(
			pairs([
				keyed('quiet', {newestMessageAt: T0 + DAY}),
				keyed('later', {startedAtRaw: T0 + 500}),
				keyed('other', {userId: 'u2'}),
				keyed('prof', {profileName: 'work'}),
				orphan('o1', {userId: 'u1', profileName: 'default'}),
			]),
		).toEqual([]);
	});

	it("pairs an orphan of source 'unknown' (the accounting writer's) with keyed rows of any source", () => {
		expect(pairs([keyed('k1'), keyed('k2', {source: 'discord'}), orphan('o1', {source: 'unknown'})])).toEqual([
			'o1>k1',
			'o1>k2',
		]);
	});

	it(
		'pairs a newer keyed row of the same key, live or reopenable, with an ' +
			'older one written after it (the passed-over sibling)',
		() => {
			const older = keyed('k1', {sessionKey: dmKey('c'), startedAtRaw: T0});
			const newer = (endReason: string | null) =>
				keyed('k2', {sessionKey: dmKey('c'), startedAtRaw: T0 + 400, newestMessageAt: T0 + DAY, endReason});
			expect(pairs([older, newer(null)])).toEqual(['k2>k1']);
			// The legacy finder's shape: the resumed row started after the sibling.
			expect(pairs([{...older, startedAtRaw: T0 + 500}, newer(null)])).toEqual(['k2>k1']);
			expect(pairs([older, newer('agent_close')])).toEqual(['k2>k1']);
			// A deliberate boundary (/new, a reset) or a compression is not a row a restart should have resumed.
			expect(pairs([older, newer('new_session')])).toEqual([]);
			expect(pairs([older, newer('compression')])).toEqual([]);
			// A row of the key that started after the sibling's newest message is a later conversation, not a jump back.
			expect(pairs([{...older, startedAtRaw: T0 + DAY + 1}, newer(null)])).toEqual([]);
			// Four live rows of one chat, each started after the last fell quiet: no pair to read.
			const chat = [0, 1, 2, 3].map(i =>
				keyed(`r${i}`, {sessionKey: dmKey('d'), startedAtRaw: T0 + i * 1800, newestMessageAt: T0 + i * 1800 + 400}),
			);
			expect(pairs(chat)).toEqual([]);
		},
	);

	it(
		"never takes a row keyed '' for a resumed row: the empty key is no chat " +
			"(Hermes' finder returns nothing for it)",
		() => {
			expect(pairs([keyed('k1', {sessionKey: ''}), orphan('o1')])).toEqual([]);
			const older = keyed('e1', {sessionKey: '', startedAtRaw: T0});
			expect(pairs([older, keyed('e2', {sessionKey: '', startedAtRaw: T0 + 400, newestMessageAt: T0 + DAY})])).toEqual(
				[],
			);
		},
	);
});
