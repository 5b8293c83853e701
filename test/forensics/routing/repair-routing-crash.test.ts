/**
 * Where a generation's own repair-routing fails (forensics/routing/repair-routing-crash.ts), row by row, as
 * the real code fails (test/fixtures/hermes-agree-edges has the stores it was run on), and the live
 * view's incremental analysis following a row that makes current Hermes' repair-routing fail.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {rulesFor} from '../../../source/forensics/generations.js';
import {analyzeIncremental} from '../../../source/forensics/analysis/incremental.js';
import {repairRoutingCrashOf} from '../../../source/forensics/routing/repair-routing-crash.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {T0, dmKey, emptySession, session, snapshot} from '../../helpers/records.js';

const v25 = rulesFor('v25');
const v30 = rulesFor('v30');
const donor = session({id: 'donor', sessionKey: dmKey('42'), chatId: '42', chatType: 'dm'});
const TYPE_ERROR = "TypeError: unsupported operand type(s) for -: 'str' and 'float'";

function crashOf(rows: SessionRecord[], rules = v25) {
	return repairRoutingCrashOf([donor, ...rows], rules);
}

describe("v25's throwing json_extract", () => {
	it(
		'fails on a keyless, non-tool row whose model_config is not JSON, with ' +
			'messages or without (an empty string included)',
		() => {
			expect(crashOf([emptySession({id: 'bad', source: 'discord', modelConfigInvalid: true})])?.sessionId).toBe('bad');
			expect(crashOf([session({id: 'bad', modelConfigInvalid: true})])?.error).toBe(
				'sqlite3.OperationalError: malformed JSON',
			);
		},
	);

	it('does not fail on a tool row or a keyed row, and v30 (json_valid) never does', () => {
		expect(
			crashOf([
				session({id: 'tool', source: 'tool', modelConfigInvalid: true}),
				session({id: 'keyed', sessionKey: dmKey('7'), modelConfigInvalid: true}),
			]),
		).toBeNull();
		expect(crashOf([emptySession({id: 'bad', modelConfigInvalid: true})], v30)).toBeNull();
	});
});

describe('(started_at or 0) - gap, in v25 and v30', () => {
	for (const rules of [v25, v30]) {
		it(`${rules.ruleSet}: a listed row with no parent whose started_at is TEXT raises TypeError; a BLOB too`, () => {
			expect(crashOf([session({id: 'text', startedAtRaw: 'yesterday', newestMessageAt: T0})], rules)?.error).toBe(
				TYPE_ERROR,
			);
			expect(
				crashOf([session({id: 'blob', startedAtRaw: Buffer.from('x'), newestMessageAt: T0})], rules)?.error,
			).toContain("'bytes'");
		});

		it(
			[
				`${rules.ruleSet}: not with a parent (lineage evidence),`,
				'an empty TEXT (falsy), no messages, or a tool row',
			].join(' '),
			() => {
				expect(
					crashOf(
						[
							session({id: 'lineage', parentSessionId: 'donor', startedAtRaw: 'yesterday', newestMessageAt: T0}),
							session({id: 'empty', startedAtRaw: '', newestMessageAt: T0}),
							emptySession({id: 'nomsg', startedAtRaw: 'yesterday'}),
							session({id: 'tool', source: 'tool', startedAtRaw: 'yesterday', newestMessageAt: T0}),
						],
						rules,
					),
				).toBeNull();
			},
		);
	}

	it("the live view's incremental analysis sees the failure a changed row brings, and its end", () => {
		const orphan = session({id: 'orphan', startedAtRaw: T0 + 100, newestMessageAt: T0 + 200});
		const fill = Array.from({length: 30}, (_, i) => session({id: `k${i}`, sessionKey: dmKey(String(100 + i))}));
		const before = snapshot([donor, orphan, ...fill]);
		const first = analyze(before);
		expect(first.repairRoutingCrash).toBeNull();
		const text = {...orphan, startedAtRaw: 'yesterday'};
		const during = snapshot([donor, text, ...fill]);
		const second = analyzeIncremental(first, during, new Set(['orphan']));
		expect(second.repairRoutingCrash?.error).toBe(TYPE_ERROR);
		expect(second.repairRoutingCrash).toEqual(analyze(during).repairRoutingCrash);
		const third = analyzeIncremental(second, snapshot([donor, orphan, ...fill]), new Set(['orphan']));
		expect(third.repairRoutingCrash).toBeNull();
	});
});
