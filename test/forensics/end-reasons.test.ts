/**
 * Hermes' end-reason sets (forensics/end-reasons.ts; docs/hermes-rules.md, end-reasons): which
 * closes fence a chat's older rows out of restart recovery and which ones it reopens, per generation.
 */
import {describe, expect, it} from 'vitest';
import {
	BOUNDARY_END_REASONS,
	LEGACY_RECOVERABLE_END_REASONS,
	RECOVERABLE_END_REASONS,
	REPAIR_END_REASON,
	RESET_END_REASONS,
} from '../../source/forensics/end-reasons.js';

describe('end-reason sets', () => {
	it('a boundary is a reset or the CLI /new, nothing else', () => {
		expect([...BOUNDARY_END_REASONS].sort()).toEqual([...RESET_END_REASONS, 'new_session'].sort());
		expect(RESET_END_REASONS.has('new_session')).toBe(false);
		expect([...RESET_END_REASONS].sort()).toEqual(
			['daily', 'idle', 'resume_pending_expired', 'session_reset', 'session_switch', 'suspended'].sort(),
		);
	});

	it('the older generations reopen agent_close and ws_orphan_reap only; current Hermes two more', () => {
		expect([...LEGACY_RECOVERABLE_END_REASONS].sort()).toEqual(['agent_close', 'ws_orphan_reap']);
		expect([...RECOVERABLE_END_REASONS].sort()).toEqual([
			'agent_close',
			'startup_orphan_reap',
			'superseded_by_resume',
			'ws_orphan_reap',
		]);
	});

	it('no reason is both a boundary and recoverable, and what a repair writes is neither', () => {
		expect([...RECOVERABLE_END_REASONS].filter(r => BOUNDARY_END_REASONS.has(r))).toEqual([]);
		expect(REPAIR_END_REASON).toBe('superseded_by_repair');
		expect(RECOVERABLE_END_REASONS.has(REPAIR_END_REASON)).toBe(false);
		expect(BOUNDARY_END_REASONS.has(REPAIR_END_REASON)).toBe(false);
	});
});
