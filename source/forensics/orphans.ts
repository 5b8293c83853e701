/**
 * Routing orphans and their evidence, decided exactly as `hermes sessions repair-routing` decides
 * them (hermes-state.md §3.4–3.5), with one deliberate difference: only rows that can be gateway
 * rows are examined. Local surfaces are keyless by design and never orphans.
 */
import {lastActive, numeric} from './time.js';
import type {SessionRecord} from './types.js';

export const DEFAULT_MAX_GAP_SECONDS = 900;

/** Surfaces that never carry a gateway routing identity (hermes-state.md §1.2, §3.3 step 7). */
export const LOCAL_SURFACES: ReadonlySet<string> = new Set(['cli', 'tui', 'desktop', 'subagent', 'cron', 'kanban', 'acp', 'api_server', 'tool', 'recovered', 'oneshot']);

export type ReasonKind = 'no_predecessor' | 'ambiguous_predecessor' | 'contested_donor' | 'parent_not_keyed';

export type OrphanVerdict = {
	orphanId: string;
	source: string;
	/** COUNT(*) of the orphan's message rows (all rows, active or not), as Hermes counts them. */
	messageCount: number;
	startedAt: number | null;
	lastActive: number | null;
	verdict: 'adoptable' | 'refused';
	evidence: 'lineage' | 'contiguity' | null;
	donorId: string | null;
	/** The donor's session key the orphan would carry. */
	sessionKey: string | null;
	reasonKind: ReasonKind | null;
	/** Hermes' own wording for a refusal; for an adoptable orphan, why it is adoptable. */
	reason: string;
	/** Keyed rows the contiguity query returned (at most 2), for the evidence view. */
	candidateDonors: string[];
	profileOwner: string | null;
};

export type OrphanOptions = {
	owner: string | null;
	maxGapSeconds?: number;
	/**
	 * The sessions by id, when the caller already keeps that index of these sessions (analyze
	 * does): only the orphans' parents are looked up in it. Without it, they are found in one
	 * pass over the sessions (no index of every session is built for a few look-ups).
	 */
	byId?: ReadonlyMap<string, SessionRecord>;
};

/** Hermes' orphan predicate plus our gateway-row restriction. */
export function isOrphanCandidate(s: SessionRecord): boolean {
	return s.sessionKey === null
		&& s.hasMessageRows
		&& s.source !== 'tool'
		// SQL: json_extract(model_config, '$._branched_from') IS NULL: an empty marker still excludes.
		&& s.branchedFrom === null
		&& s.delegateFrom === null
		&& !LOCAL_SURFACES.has(s.source);
}

/** Why a keyless row is not an orphan (for the sessions view); null if it is one or is keyed. */
export function notOrphanBecause(s: SessionRecord): string | null {
	if (s.sessionKey !== null) {
		return null;
	}

	if (LOCAL_SURFACES.has(s.source)) {
		return `local surface (${s.source}): keyless by design`;
	}

	if (s.branchedFrom !== null) {
		return '/branch child: keyless by design';
	}

	if (s.delegateFrom !== null) {
		return 'delegate child: keyless by design';
	}

	if (!s.hasMessageRows) {
		return 'no messages: holds no conversation';
	}

	return null;
}

function effectiveProfile(profile: string | null, owner: string | null): string | null {
	// Python `orphan.profile_name or owner`: '' falls back too.
	return profile ? profile : owner;
}

function passesFence(donor: SessionRecord, owner: string | null, orphanOwner: string | null): boolean {
	// SQL: (owner IS NULL OR COALESCE(d.profile_name, owner) = orphan_owner)
	if (owner === null) {
		return true;
	}

	return (donor.profileName ?? owner) === orphanOwner;
}

function compatibleUsers(donorUser: string | null, orphanUser: string | null): boolean {
	return !donorUser || !orphanUser || donorUser === orphanUser;
}

/** Python's f"{gap:.0f}": halves round to even (1800.5 -> "1800"), unlike toFixed. */
export function formatGap(gap: number): string {
	const floor = Math.floor(gap);
	const rounded = gap - floor === 0.5 ? (floor % 2 === 0 ? floor : floor + 1) : Math.round(gap);
	return String(rounded);
}

/** The rows the orphans name as their parent, by id (a later row of the same id wins, as in an index). */
function parentsOf(orphans: readonly SessionRecord[], sessions: readonly SessionRecord[]): Map<string, SessionRecord> {
	const wanted = new Set<string>();
	for (const o of orphans) {
		if (o.parentSessionId) {
			wanted.add(o.parentSessionId);
		}
	}

	const parents = new Map<string, SessionRecord>();
	if (wanted.size > 0) {
		for (const s of sessions) {
			if (wanted.has(s.id)) {
				parents.set(s.id, s);
			}
		}
	}

	return parents;
}

export function findOrphans(sessions: readonly SessionRecord[], options: OrphanOptions): OrphanVerdict[] {
	const gap = options.maxGapSeconds ?? DEFAULT_MAX_GAP_SECONDS;
	const owner = options.owner;
	const orphans = sessions.filter(isOrphanCandidate).sort((a, b) => (numeric(a.startedAtRaw) ?? 0) - (numeric(b.startedAtRaw) ?? 0) || (a.id < b.id ? -1 : 1));
	const parents = options.byId ?? parentsOf(orphans, sessions);
	// Contiguity candidates: keyed rows, only of the sources that have orphans.
	const sources = new Set(orphans.map(o => o.source));
	const keyedBySource = new Map<string, Array<{row: SessionRecord; lastActive: number | null}>>();
	for (const s of sessions) {
		if (s.sessionKey === null || !sources.has(s.source)) {
			continue;
		}

		const list = keyedBySource.get(s.source);
		const entry = {row: s, lastActive: lastActive(s)};
		if (list) {
			list.push(entry);
		} else {
			keyedBySource.set(s.source, [entry]);
		}
	}

	const records: OrphanVerdict[] = orphans.map(o => {
		const oLast = lastActive(o);
		const orphanOwner = effectiveProfile(o.profileName, owner);
		const base = {
			orphanId: o.id,
			source: o.source,
			messageCount: o.messageRows ?? (o.hasMessageRows ? Math.max(1, o.messageCountColumn) : 0),
			startedAt: numeric(o.startedAtRaw),
			lastActive: oLast,
			profileOwner: orphanOwner,
		};
		if (o.parentSessionId) {
			const parent = parents.get(o.parentSessionId);
			const ok = parent !== undefined && parent.sessionKey !== null && parent.source === o.source && passesFence(parent, owner, orphanOwner);
			if (ok) {
				return {...base, verdict: 'adoptable', evidence: 'lineage', donorId: parent.id, sessionKey: parent.sessionKey, reasonKind: null, reason: `recorded lineage: parent ${parent.id} carries ${parent.sessionKey}`, candidateDonors: [parent.id]} satisfies OrphanVerdict;
			}

			const detail = parent === undefined
				? `parent ${o.parentSessionId} is not in this store`
				: (parent.sessionKey === null ? `parent ${parent.id} (${parent.source || 'no source'}) has no session key` : (parent.source === o.source ? `parent ${parent.id} belongs to another profile` : `parent ${parent.id} is a ${parent.source || 'sourceless'} row, this is ${o.source || 'sourceless'}`));
			return {...base, verdict: 'refused', evidence: null, donorId: null, sessionKey: null, reasonKind: 'parent_not_keyed', reason: `parent session carries no gateway identity of this source (${detail})`, candidateDonors: []} satisfies OrphanVerdict;
		}

		// Python: `started = orphan["started_at"] or 0`; a TEXT cell would make Hermes raise.
		const startedCell = o.startedAtRaw;
		if (startedCell !== null && typeof startedCell !== 'number' && typeof startedCell !== 'bigint') {
			return {...base, verdict: 'refused', evidence: null, donorId: null, sessionKey: null, reasonKind: 'no_predecessor', reason: `started_at is not a number (${JSON.stringify(String(startedCell)).slice(0, 40)}): no time window can be placed (Hermes' own repair-routing would fail on this row)`, candidateDonors: []} satisfies OrphanVerdict;
		}

		// Any stored number counts as is, even one outside the epoch window (inf gives an empty window).
		const started = (typeof startedCell === 'bigint' ? Number(startedCell) : startedCell) || 0;
		const candidates = oLast === null ? [] : (keyedBySource.get(o.source) ?? [])
			.filter(({row, lastActive: la}) => row.id !== o.id
				&& compatibleUsers(row.userId, o.userId)
				&& la !== null && la >= started - gap && la <= started + gap
				&& la < oLast
				&& passesFence(row, owner, orphanOwner))
			.sort((a, b) => b.lastActive! - a.lastActive! || (a.row.id < b.row.id ? 1 : -1))
			.slice(0, 2);
		if (candidates.length === 0) {
			return {...base, verdict: 'refused', evidence: null, donorId: null, sessionKey: null, reasonKind: 'no_predecessor', reason: `no keyed predecessor fell quiet within ${formatGap(gap)}s of this session's start`, candidateDonors: []} satisfies OrphanVerdict;
		}

		if (candidates.length > 1) {
			return {...base, verdict: 'refused', evidence: null, donorId: null, sessionKey: null, reasonKind: 'ambiguous_predecessor', reason: 'ambiguous: more than one keyed predecessor matches this window', candidateDonors: candidates.map(c => c.row.id)} satisfies OrphanVerdict;
		}

		const donor = candidates[0]!;
		const quietFor = started - donor.lastActive!;
		return {...base, verdict: 'adoptable', evidence: 'contiguity', donorId: donor.row.id, sessionKey: donor.row.sessionKey, reasonKind: null, reason: `the only keyed ${o.source} row that fell quiet within ${formatGap(gap)}s of this session's start (${quietFor >= 0 ? `${Math.round(quietFor)}s before` : `${Math.round(-quietFor)}s after`} it)`, candidateDonors: [donor.row.id]} satisfies OrphanVerdict;
	});

	// Contest pass: two or more adoptable orphans naming the same donor are all refused (they keep donor and evidence).
	const claims = new Map<string, number>();
	for (const r of records) {
		if (r.verdict === 'adoptable' && r.donorId) {
			claims.set(r.donorId, (claims.get(r.donorId) ?? 0) + 1);
		}
	}

	for (const r of records) {
		if (r.verdict === 'adoptable' && r.donorId && (claims.get(r.donorId) ?? 0) > 1) {
			r.verdict = 'refused';
			r.reasonKind = 'contested_donor';
			r.reason = 'ambiguous: more than one unkeyed session claims this predecessor';
		}
	}

	return records;
}
