/**
 * One status per session for lists (forensics/analysis/status.ts): a rollback that happened above
 * everything, then the zombie a restart would resume, the at-risk holder of the newest message,
 * the orphan; else live or ended by the row's end stamp.
 */
import {describe, expect, it} from 'vitest';
import {STATUS_GLYPH, isHiddenByDefault, statusIndex, statusOf} from '../../../source/forensics/analysis/status.js';
import type {Analysis} from '../../../source/forensics/analysis/analyze.js';
import {session} from '../../helpers/records.js';

type Parts = Parameters<typeof statusIndex>[0];
const chat = (partial: Partial<Analysis['routing'][number]>) =>
	({rollbackRisk: true, ...partial}) as Analysis['routing'][number];
const orphan = (orphanId: string) => ({orphanId}) as Analysis['orphans'][number];

describe('statusIndex', () => {
	it('marks an orphan, and a chat at risk: its restart target a zombie, its newest holder at risk', () => {
		const index = statusIndex({
			orphans: [orphan('o')],
			routing: [chat({restartResolvesTo: 'k1', newestActivityIn: 'k2'})],
		} as Parts);
		expect(Object.fromEntries(index)).toEqual({o: 'orphan', k1: 'zombie', k2: 'at-risk'});
	});

	it('a chat not at risk marks nothing; an orphan holding the newest message stays an orphan', () => {
		const index = statusIndex({
			orphans: [orphan('o')],
			routing: [
				chat({rollbackRisk: false, restartResolvesTo: 'k0', newestActivityIn: 'x'}),
				chat({restartResolvesTo: null, newestActivityIn: 'o'}),
			],
		} as Parts);
		expect(Object.fromEntries(index)).toEqual({o: 'orphan'});
	});

	it('a rollback that happened wins: the resumed row is resumed-stale, every skipped row stranded', () => {
		const index = statusIndex({
			orphans: [orphan('s1')],
			routing: [chat({restartResolvesTo: 'k', newestActivityIn: 's1'})],
			rollbacks: [{resumedId: 'k', skipped: {id: 's1'}, alsoSkipped: [{id: 's2'}]}],
		} as Parts);
		expect(Object.fromEntries(index)).toEqual({s1: 'stranded', k: 'resumed-stale', s2: 'stranded'});
	});
});

describe('statusOf and the list filter', () => {
	it('falls back to live or ended by the end stamp', () => {
		const index = new Map([['z', 'zombie' as const]]);
		expect(statusOf(session({id: 'z', endReason: 'agent_close'}), index)).toBe('zombie');
		expect(statusOf(session({id: 'a'}), index)).toBe('live');
		expect(statusOf(session({id: 'b', endReason: 'agent_close'}), index)).toBe('ended');
		expect(STATUS_GLYPH.live).toBe('●');
	});

	it('hides tool and subagent rows and delegations, as Hermes does', () => {
		expect(isHiddenByDefault(session({id: 't', source: 'tool'}))).toBe(true);
		expect(isHiddenByDefault(session({id: 's', source: 'subagent'}))).toBe(true);
		expect(isHiddenByDefault(session({id: 'd', delegateFrom: 'p'}))).toBe(true);
		expect(isHiddenByDefault(session({id: 'c', source: 'cli'}))).toBe(false);
	});
});
