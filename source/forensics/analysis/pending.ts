/**
 * The analysis a live view shows while the first real one runs (issue #26: render first, analyse after): the
 * preview's sessions, and no verdict at all: no orphan, no routing, no rollback, no finding. The views say
 * "analysing…" over it (LiveModel.analysing): an empty verdict list here is "not known yet", never "healthy".
 */
import {type Analysis, analyze, indexById} from './analyze.js';
import type {Snapshot} from '../types.js';

/** An analysis of no rows, carrying the preview's sessions to list. */
export function pendingAnalysis(preview: Snapshot, options: {maxGapSeconds?: number} = {}): Analysis {
	// Nothing is judged: the engine runs over no rows (no routing, no probes, no places), so every verdict is empty.
	const empty = analyze(
		{...preview, sessions: [], routing: [], restartProbes: [], places: undefined, missingColumns: []},
		{maxGapSeconds: options.maxGapSeconds},
	);
	return {...empty, snapshot: preview, byId: indexById(preview.sessions), findings: []};
}
