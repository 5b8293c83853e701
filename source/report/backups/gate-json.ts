/**
 * `hfx gate --json`: the verdict, the archive that passes (or null), why, the age allowed, and
 * every candidate weighed with what it lacks.
 */
import type {GateResult} from '../../backup/ops/gate.js';

export function gateJson(r: GateResult) {
	return {
		ok: r.ok,
		archive: r.archive,
		reason: r.reason,
		maxAgeSeconds: r.maxAgeSeconds,
		candidates: r.candidates.map(c => ({
			path: c.path,
			kind: c.kind,
			ageSeconds: c.ageSeconds,
			verified: Boolean(c.verified),
			drilled: Boolean(c.drilled),
			complete: c.complete,
			home: c.home,
			owner: c.owner,
			missing: c.missing,
		})),
	};
}
