/**
 * The analysis a live view shows while its first real one runs (forensics/analysis/pending.ts): the preview's sessions
 * to list, and no verdict at all, even over rows the engine would judge at rollback risk.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {pendingAnalysis} from '../../../source/forensics/analysis/pending.js';
import {statusIndex} from '../../../source/forensics/analysis/status.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const K_ID = '20231114_221320_aaaabbbb';
const O_ID = '20231114_222000_04c1d6c6';
/** The #82616 shape (as analyze.test.ts): K closed, its conversation went on in a keyless row a minute later. */
const atRisk = () =>
	snapshot(
		[
			session({
				id: K_ID,
				sessionKey: K,
				userId: 'u1',
				chatId: '42',
				chatType: 'dm',
				newestMessageAt: T0 + 60,
				endReason: 'agent_close',
				endedAtRaw: T0 + 100,
			}),
			session({
				id: O_ID,
				userId: 'u1',
				chatId: '42',
				chatType: 'dm',
				startedAtRaw: T0 + 120,
				newestMessageAt: T0 + 3600,
				messageCountColumn: 5,
			}),
		],
		{routing: [routingEntry(K, K_ID)]},
	);

describe('pendingAnalysis', () => {
	it('lists the preview’s sessions and judges none of them, where the real analysis finds a rollback risk', () => {
		const preview = atRisk();
		expect(analyze(preview).findings.map(f => f.kind)).toContain('rollback-risk');

		const pending = pendingAnalysis(preview, {maxGapSeconds: 600});
		expect(pending.snapshot.sessions.map(s => s.id)).toEqual([K_ID, O_ID]);
		expect([...pending.byId.keys()]).toEqual([K_ID, O_ID]);
		expect(pending.findings).toEqual([]);
		expect(pending.orphans).toEqual([]);
		expect(pending.routing).toEqual([]);
		expect(pending.rollbacks).toEqual([]);
		expect(pending.maxGapSeconds).toBe(600);
		// No session gets a status from it but live/ended by its own row.
		expect(statusIndex(pending).size).toBe(0);
	});

	it('reports no missing column either: a finding of the schema waits for the analysis too', () => {
		const preview = {...atRisk(), missingColumns: [{column: 'sessions.handoff_state', undecided: 'x'}]};
		expect(analyze(preview).findings.map(f => f.kind)).toContain('missing-column');
		expect(pendingAnalysis(preview).findings).toEqual([]);
	});
});
