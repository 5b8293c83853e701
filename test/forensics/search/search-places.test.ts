import {describe, expect, it} from 'vitest';
import {
	byNewest,
	containsAll,
	contentText,
	messageOf,
	payloadMessages,
	placeHit,
} from '../../../source/forensics/search/search-places.js';

describe('search beside the store (pure)', () => {
	it("matches every term as the store's LIKE does: ASCII letters without case, other letters exactly", () => {
		expect(containsAll('The PR that got Merged', ['pr', 'merged'])).toBe(true);
		expect(containsAll('The PR that got merged', ['pr', 'closed'])).toBe(false);
		// SQLite's LIKE folds ASCII only: É and é are different letters to it.
		expect(containsAll('ÉTÉ', ['été'])).toBe(false);
		expect(containsAll('été', ['été'])).toBe(true);
	});

	it("reads a message's text from a string, a list of parts, and its reasoning", () => {
		expect(contentText([{type: 'text', text: 'first'}, {type: 'image_url', image_url: 'x'}, 'second'])).toBe(
			'first\nsecond',
		);
		expect(messageOf({role: 'assistant', content: null, reasoning: 'thinking it over'}, 's1')).toEqual({
			role: 'assistant',
			text: 'thinking it over',
			timestamp: undefined,
			sessionId: 's1',
		});
		expect(messageOf('not a dict', 's1')).toBeNull();
	});

	it('takes the messages of each spool shape (hermes-incidents.md §2.2)', () => {
		expect(
			payloadMessages({
				reason: 'transcript_cap_drop',
				session_key: 'S',
				ts: 5,
				data: {session_id: 'S', message: {role: 'user', content: 'a', timestamp: 4}},
			}),
		).toEqual([{role: 'user', text: 'a', timestamp: 4, sessionId: 'S'}]);
		expect(payloadMessages({reason: 'shutdown', session_key: 'agent:main:x', ts: 9, data: {text: 'b'}})).toEqual([
			{role: 'user', text: 'b', timestamp: 9, sessionId: null},
		]);
		expect(
			payloadMessages({
				reason: 'shutdown-with-unpersisted-agent-history',
				session_id: 'T',
				messages: [{role: 'user', content: 'c'}, 7],
			}),
		).toEqual([{role: 'user', text: 'c', timestamp: undefined, sessionId: 'T'}]);
	});

	it('orders hits newest first, those without a time last', () => {
		const hit = (file: string, at: number | null) =>
			placeHit(
				{role: 'user', text: 'x', timestamp: at, sessionId: null},
				['x'],
				{place: 'jsonl', file, position: 1, fate: ''},
				v => (typeof v === 'number' ? v : null),
			)!;
		expect([hit('a', null), hit('b', 5), hit('c', 9)].sort(byNewest).map(h => h.file)).toEqual(['c', 'b', 'a']);
	});
});
