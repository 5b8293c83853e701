/**
 * A rollback that already happened in words and as JSON (report/analysis/rollbacks.ts): the story of what was
 * resumed and skipped, every line within 80 columns, the routing entry and a whole-index rewrite
 * said, the adopt command for a keyless row only.
 */
import {describe, expect, it} from 'vitest';
import {rollbackNextStep} from '../../../source/forensics/rollbacks/rollback-finding.js';
import type {Rollback} from '../../../source/forensics/rollbacks/rollbacks.js';
import {rollbackJson, rollbackLines} from '../../../source/report/analysis/rollbacks.js';
import {T0, dmKey} from '../../helpers/records.js';

const DAY = 86_400;
const K = '20231114_221320_aaaabbbb';
const O = '20231114_222000_04c1d6c6';

function rollback(partial: Partial<Rollback> = {}): Rollback {
	return {
		sessionKey: dmKey('777001'),
		resumedId: K,
		jumpedFrom: T0 + 300,
		resumedAt: T0 + 3 * DAY,
		after: {messages: 4, userTurns: 2, lastAt: T0 + 3 * DAY + 65},
		skipped: {
			id: O,
			kind: 'keyless',
			messages: 798,
			firstAt: T0 + 420,
			lastAt: T0 + DAY,
			forkSeconds: 120,
			certainty: 'strong',
			evidence: ['its messages fall inside the gap of the resumed row', 'it started 2 minutes after'],
		},
		alsoSkipped: [],
		certainty: 'strong',
		routedTo: K,
		routingRewriteAt: null,
		...partial,
	};
}

/** The lines as one text, wrapping undone. */
function said(lines: readonly string[]): string {
	return lines.join(' ').replace(/\s+/g, ' ');
}

describe('rollbackLines', () => {
	it('tells what was resumed, how old the context was, what was skipped and written since', () => {
		const lines = rollbackLines(rollback());
		expect(lines[0]).toBe(`✗ ROLLED BACK  ${dmKey('777001')}  (already happened; strong)`);
		expect(lines[1]).toBe(`    restart resumed    ${K}: its first message after the`);
		expect(lines[2]).toBe(`${' '.repeat(23)}gap is at 2023-11-17 22:13 UTC`);
		expect(lines[3]).toBe('    jumped back to     2023-11-14 22:18 UTC, a context 3.0 days old');
		const text = said(lines);
		expect(text).toContain(`${O}: 798 messages, 2023-11-14 22:20 to 2023-11-15 22:13 UTC, keyless`);
		expect(text).toContain('2 user turns (4 messages)');
		expect(text).toContain(`the routing index names ${K} now (certain)`);
		expect(text).not.toContain('also in the gap');
		expect(lines.at(-1)).toBe('');
		for (const line of lines) {
			expect(line.length, line).toBeLessThanOrEqual(80);
		}
	});

	it('wraps a long value under its label, indented past it', () => {
		const lines = rollbackLines(rollback());
		const next = lines.findIndex(l => l.startsWith('    next'));
		expect(next).toBeGreaterThan(0);
		expect(lines[next + 1]).toMatch(/^ {23}\S/);
		expect(
			lines
				.slice(next)
				.join(' ')
				.replace(/\s+/g, ' ')
				.replace(/^ next /, ''),
		).toBe(`${rollbackNextStep(rollback())} `);
	});

	it('says a same-key row, the other rows in the gap, one message in the singular', () => {
		const text = said(
			rollbackLines(
				rollback({
					skipped: {...rollback().skipped, kind: 'same-key', messages: 1},
					alsoSkipped: [{id: 'older-row', messages: 1, lastAt: T0 + 500}],
					after: {messages: 1, userTurns: 1, lastAt: T0 + 3 * DAY},
				}),
			),
		);
		expect(text).toContain('1 message, ');
		expect(text).toContain('a newer row of the same key');
		expect(text).toContain('also in the gap older-row (1 message)');
		expect(text).toContain('1 user turn (1 message)');
	});

	it('says when the index names another row, none, or was rewritten whole before the resume', () => {
		expect(said(rollbackLines(rollback({routedTo: 'other'})))).toContain(
			'routing the routing index names other now next',
		);
		expect(said(rollbackLines(rollback({routedTo: null})))).toContain('the routing index has no entry for this chat');
		const rewritten = rollbackLines(rollback({routingRewriteAt: T0 + 3 * DAY - 7200}))
			.join(' ')
			.replace(/\s+/g, ' ');
		expect(rewritten).toContain('rewrote its whole routing index at 2023-11-17 20:13 UTC, 2.0 hours before');
		const moments = rollbackLines(rollback({routingRewriteAt: T0 + 3 * DAY}))
			.join(' ')
			.replace(/\s+/g, ' ');
		expect(moments).toContain('UTC, moments before the first message');
	});
});

describe('rollbackJson', () => {
	it("carries the rollback, the context's age and the next step; the adopt command for a keyless row", () => {
		const r = rollback();
		expect(rollbackJson(r)).toEqual({
			sessionKey: r.sessionKey,
			resumedId: K,
			jumpedFrom: T0 + 300,
			resumedAt: T0 + 3 * DAY,
			contextAgeSeconds: 3 * DAY - 300,
			after: r.after,
			skipped: r.skipped,
			alsoSkipped: [],
			certainty: 'strong',
			routedTo: K,
			routingRewriteAt: null,
			adoptCommand: 'hfx repair --only 04c1d6c6 --donor aaaabbbb',
			next: rollbackNextStep(r),
		});
	});

	it('has no adopt command for a same-key row (Hermes switches back with /resume)', () => {
		const r = rollback({skipped: {...rollback().skipped, kind: 'same-key'}});
		expect(rollbackJson(r).adoptCommand).toBeNull();
		expect(rollbackJson(r).next).toContain(`/resume ${O}`);
	});
});
