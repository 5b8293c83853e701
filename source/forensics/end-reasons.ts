/**
 * End-reason sets, as Hermes defines them (hermes_state_common.py; docs/hermes-rules.md,
 * end-reasons).
 */

/** A deliberate conversation boundary: fences older rows out of restart recovery. */
export const RESET_END_REASONS: ReadonlySet<string> = new Set([
	'session_reset',
	'session_switch',
	'idle',
	'daily',
	'suspended',
	'resume_pending_expired',
]);

/** The reset set plus CLI `/new`. */
export const BOUNDARY_END_REASONS: ReadonlySet<string> = new Set([...RESET_END_REASONS, 'new_session']);

/** Accidental closes that restart recovery reopens (current Hermes). */
export const RECOVERABLE_END_REASONS: ReadonlySet<string> = new Set([
	'agent_close',
	'ws_orphan_reap',
	'superseded_by_resume',
	'startup_orphan_reap',
]);

/** The older generations (v21, v25) reopen only these. */
export const LEGACY_RECOVERABLE_END_REASONS: ReadonlySet<string> = new Set(['agent_close', 'ws_orphan_reap']);

/** What a repair writes on the donor: deliberately not recoverable, so the donor is never resumed again. */
export const REPAIR_END_REASON = 'superseded_by_repair';
