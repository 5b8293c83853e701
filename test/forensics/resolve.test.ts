import {describe, expect, it} from 'vitest';
import {resolutionProblem, resolveChat, resolveSessionId, suffixOf} from '../../source/forensics/resolve.js';

const IDS = ['20261128_091500_ab12cd34', '20261128_091502_ef56ab78', '20261129_101010_ab99ffee'];

describe('resolveSessionId: one way to name a session', () => {
	it('takes the id, a unique prefix, or the random suffix (or a unique start of it, ≥ 4 characters)', () => {
		expect(resolveSessionId(IDS, '20261128_091500_ab12cd34')).toEqual({ok: true, id: '20261128_091500_ab12cd34'});
		expect(resolveSessionId(IDS, '20261129')).toEqual({ok: true, id: '20261129_101010_ab99ffee'});
		expect(resolveSessionId(IDS, 'ef56ab78')).toEqual({ok: true, id: '20261128_091502_ef56ab78'});
		expect(resolveSessionId(IDS, 'ab12')).toEqual({ok: true, id: '20261128_091500_ab12cd34'});
	});

	it('lists what an ambiguous name matches, and never guesses', () => {
		const r = resolveSessionId(IDS, '20261128');
		expect(r).toEqual({ok: false, problem: 'ambiguous', query: '20261128', matches: IDS.slice(0, 2)});
		expect(resolutionProblem(r as Extract<typeof r, {ok: false}>)).toBe(
			'"20261128" names 2 sessions (20261128_091500_ab12cd34, ' +
				'20261128_091502_ef56ab78): give more of the id, or its random suffix',
		);
		expect(resolveSessionId(IDS, 'ab')).toMatchObject({ok: false, problem: 'none'});
		expect(resolveSessionId(IDS, '')).toMatchObject({ok: false, problem: 'none'});
		expect(suffixOf('20261128_091500_ab12cd34')).toBe('ab12cd34');
	});
});

describe('resolveChat: a chat is named exactly', () => {
	const keys = ['agent:main:telegram:dm:777001', 'agent:main:discord:dm:42', 'agent:main:slack:dm:42'];
	it('takes the exact key; the end of exactly one key is a suggestion, never a guess', () => {
		expect(resolveChat(keys, 'agent:main:discord:dm:42')).toEqual({ok: true, key: 'agent:main:discord:dm:42'});
		expect(resolveChat(keys, '777001')).toEqual({
			ok: false,
			query: '777001',
			suggestion: 'agent:main:telegram:dm:777001',
		});
		expect(resolveChat(keys, 'dm:777001')).toEqual({
			ok: false,
			query: 'dm:777001',
			suggestion: 'agent:main:telegram:dm:777001',
		});
		expect(resolveChat(keys, '42')).toEqual({ok: false, query: '42', suggestion: null});
	});
});
