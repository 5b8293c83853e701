/**
 * How the Activity pane writes an event (source/ui/panes/activity.tsx): a burst as a time range
 * and its sums; every other kind with a mark and a word of its own, so that without colour
 * (NO_COLOR) a rotation, a finding appearing or clearing and a repair still stand apart.
 */
import {describe, expect, it} from 'vitest';
import type {ActivityEvent, ActivityKind} from '../../../source/forensics/analysis/activity.js';
import {activityLine} from '../../../source/ui/panes/activity.js';

const AT = 1_786_670_000;
const event = (kind: ActivityKind, text = 'x'): ActivityEvent => ({at: AT, kind, subject: 's', text});

describe('activityLine', () => {
	it('writes a burst as the span it lasted and what it sums', () => {
		const burst: ActivityEvent = {
			at: AT,
			kind: 'messages',
			subject: 'a',
			text: '+37 messages in 3 sessions',
			burst: {until: AT + 8, messages: 37, sessions: ['a', 'b', 'c']},
		};
		expect(activityLine(burst)).toBe('01:13:20–01:13:28  · +37 messages in 3 sessions');
		expect(activityLine({...burst, burst: {until: AT, messages: 1, sessions: ['a']}, text: '+1 message in a'})).toBe(
			'01:13:20  · +1 message in a',
		);
	});

	it('writes a notice seen again as the span it lasted, counted before its text', () => {
		const e: ActivityEvent = {...event('reopened', 'the store file changed'), repeated: {times: 25, until: AT + 5}};
		expect(activityLine(e)).toBe('01:13:20–01:13:25  ■ STORE ×25     the store file changed');
	});

	it('marks each signal kind with a glyph and a word of its own', () => {
		const signal: ActivityKind[] = [
			'rotated',
			'routing',
			'orphan',
			'rollback-risk',
			'resolved',
			'repaired',
			'reopened',
		];
		const prefixes = signal.map(kind => activityLine(event(kind)).slice(10).replace(/ +x$/, ''));
		expect(prefixes).toEqual([
			'▶ ROTATED',
			'▶ ROUTING',
			'! ORPHAN',
			'✗ ROLLBACK RISK',
			'✓ CLEARED',
			'✓ REPAIRED',
			'■ STORE',
		]);
		expect(new Set(prefixes).size).toBe(signal.length);
	});

	it('tells a new session of a chat (a rotation to the operator) from a keyless one', () => {
		expect(activityLine(event('created', 'b (telegram, agent:main:telegram:dm:1)'))).toContain('▶ NEW SESSION');
		expect(activityLine(event('created', 'b (cli, no routing identity)'))).toContain('+ new session');
	});
});
