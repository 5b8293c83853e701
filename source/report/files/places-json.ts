/**
 * The places beside a store as `--json` carries them (scan and files): each file with its verdict,
 * its turns and its meaning; the per-line timestamps stay out (a diverted transcript is uncapped).
 */
import type {PlaceVerdicts} from '../../forensics/places/place-verdicts.js';

export function placesJson(v: PlaceVerdicts | null) {
	if (!v) {
		return null;
	}

	return {
		home: v.home,
		diverted: v.diverted.map(d => ({
			path: d.file.path,
			sessionId: d.file.sessionId,
			kind: d.kind,
			why: d.why,
			turns: d.turns,
			newestAt: d.newestAt,
			lines: d.file.lines,
			invalidLines: d.file.invalidLines,
			incompleteLast: d.file.incompleteLast,
			size: d.file.size,
			problem: d.file.problem,
		})),
		spool: v.spool.map(s => ({
			path: s.file.path,
			shape: s.file.shape,
			reason: s.file.reason,
			sessionKey: s.file.sessionKey,
			sessionId: s.file.sessionId,
			ts: s.file.ts,
			messages: s.file.messages,
			newestAt: s.file.newestAt,
			replay: s.replay,
			why: s.why,
			problem: s.file.problem,
		})),
		captures: v.captures.map(c => ({
			path: c.capture.path,
			at: c.at,
			pid: c.pid,
			partial: c.capture.partial,
			turns: c.turns,
			newestAt: c.newestAt,
			sessions: c.capture.turns,
			manifest: c.capture.manifest,
			manifestProblem: c.capture.manifestProblem,
			files: c.capture.files,
			imageProblem: c.capture.imageProblem,
		})),
		before: v.before,
		notes: v.notes,
	};
}
