/**
 * Routing orphans and their evidence, decided exactly as `hermes sessions repair-routing` decides
 * them (docs/hermes-rules.md, orphans, repair-routing, generations), under the rules of one
 * generation: the same rows it lists (every keyless row with messages except tool rows and /branch
 * or delegate children), the same donors, fences and refusals. Local-surface rows it lists and
 * refuses are flagged as such: keyless by design, reported apart, not findings.
 */
import {type Rules, rulesFor} from '../generations.js';
import {compareCells, lastActive, lastActiveRaw, numeric} from '../time.js';
import type {Cell, SessionRecord} from '../types.js';

export const DEFAULT_MAX_GAP_SECONDS = 900;

/**
 * Surfaces that never carry a gateway routing identity (docs/hermes-rules.md, orphans).
 * `api_server` is not one: the API-server platform keys its rows.
 */
export const LOCAL_SURFACES: ReadonlySet<string> = new Set([
	'cli',
	'tui',
	'desktop',
	'subagent',
	'cron',
	'kanban',
	'acp',
	'tool',
	'recovered',
	'oneshot',
]);

/**
 * Hermes' four refusals; `generations_disagree` and `builds_disagree` are hfx's own (a repair plan holds back what
 * current Hermes, or the other candidate build where the installed one is unknown, would decide otherwise).
 */
export type ReasonKind =
	| 'no_predecessor'
	| 'ambiguous_predecessor'
	| 'contested_donor'
	| 'parent_not_keyed'
	| 'generations_disagree'
	| 'builds_disagree';

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
	/** A local-surface row (cli, tui, cron…) that repair-routing lists and refuses: keyless by design, not a finding. */
	localSurface: boolean;
};

export type OrphanOptions = {
	/** The store's owner profile (from its path); the profile fence uses it where the rules have one. */
	owner: string | null;
	/** The generation's rules (default: current). */
	rules?: Rules;
	maxGapSeconds?: number;
	/**
	 * The sessions by id, when the caller already keeps that index of these sessions (analyze
	 * does): only the orphans' parents are looked up in it. Without it, they are found in one
	 * pass over the sessions (no index of every session is built for a few look-ups).
	 */
	byId?: ReadonlyMap<string, SessionRecord>;
};

/** repair-routing's orphan predicate (the rows its scan lists). */
export function isOrphanCandidate(s: SessionRecord): boolean {
	return (
		s.sessionKey === null &&
		s.hasMessageRows &&
		s.source !== 'tool' &&
		// SQL: json_extract(model_config, '$._branched_from') IS NULL: an empty marker still excludes.
		s.branchedFrom === null &&
		s.delegateFrom === null
	);
}

/**
 * Whether the snapshot counts this row's messages: every candidate, as repair-routing reports each
 * row it lists with COUNT(*) of its messages (the store reads them in one grouped query).
 */
export function needsMessageCount(s: SessionRecord): boolean {
	return isOrphanCandidate(s);
}

/** A refused candidate of a local surface: listed by repair-routing, keyless by design. */
export function isListedRefusedLocal(o: OrphanVerdict): boolean {
	return o.localSurface && o.verdict === 'refused';
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

type Keyed = {row: SessionRecord; lastActive: Cell};

/** The generation's "last active" of a row: windowed (v30) or SQLite's raw MAX (v25). */
function activityOf(rules: Rules): (s: SessionRecord) => Cell {
	return rules.epochWindow ? lastActive : lastActiveRaw;
}

/** Keyed rows of the sources that have orphans, with their last activity: the contiguity candidates. */
function keyedBySource(
	sessions: readonly SessionRecord[],
	sources: ReadonlySet<string>,
	activity: (s: SessionRecord) => Cell,
): Map<string, Keyed[]> {
	const bySource = new Map<string, Keyed[]>();
	for (const s of sessions) {
		if (s.sessionKey === null || !sources.has(s.source)) {
			continue;
		}

		const list = bySource.get(s.source);
		const entry = {row: s, lastActive: activity(s)};
		if (list) {
			list.push(entry);
		} else {
			bySource.set(s.source, [entry]);
		}
	}

	return bySource;
}

type Judge = {
	rules: Rules;
	owner: string | null;
	gap: number;
	parents: ReadonlyMap<string, SessionRecord>;
	keyed: ReadonlyMap<string, Keyed[]>;
	activity: (s: SessionRecord) => Cell;
};

type Base = Pick<
	OrphanVerdict,
	'orphanId' | 'source' | 'messageCount' | 'startedAt' | 'lastActive' | 'profileOwner' | 'localSurface'
>;

type Outcome = Pick<
	OrphanVerdict,
	'verdict' | 'evidence' | 'donorId' | 'sessionKey' | 'reasonKind' | 'reason' | 'candidateDonors'
>;

/**
 * One verdict as one literal in the declared key order (a spread of the base costs ~6 µs a row: thousands of local rows
 * are listed).
 */
function verdict(b: Base, o: Outcome): OrphanVerdict {
	return {
		orphanId: b.orphanId,
		source: b.source,
		messageCount: b.messageCount,
		startedAt: b.startedAt,
		lastActive: b.lastActive,
		verdict: o.verdict,
		evidence: o.evidence,
		donorId: o.donorId,
		sessionKey: o.sessionKey,
		reasonKind: o.reasonKind,
		reason: o.reason,
		candidateDonors: o.candidateDonors,
		profileOwner: b.profileOwner,
		localSurface: b.localSurface,
	};
}

function refused(base: Base, reasonKind: ReasonKind, reason: string, candidateDonors: string[] = []): OrphanVerdict {
	return verdict(base, {
		verdict: 'refused',
		evidence: null,
		donorId: null,
		sessionKey: null,
		reasonKind,
		reason,
		candidateDonors,
	});
}

function byLineage(o: SessionRecord, base: Base, judge: Judge, orphanOwner: string | null): OrphanVerdict {
	const parent = judge.parents.get(o.parentSessionId!);
	const fenced = (p: SessionRecord) => judge.rules.profileFence && !passesFence(p, judge.owner, orphanOwner);
	if (parent !== undefined && parent.sessionKey !== null && parent.source === o.source && !fenced(parent)) {
		return verdict(base, {
			verdict: 'adoptable',
			evidence: 'lineage',
			donorId: parent.id,
			sessionKey: parent.sessionKey,
			reasonKind: null,
			reason: `recorded lineage: parent ${parent.id} carries ${parent.sessionKey}`,
			candidateDonors: [parent.id],
		});
	}

	const detail =
		parent === undefined
			? `parent ${o.parentSessionId} is not in this store`
			: parent.sessionKey === null
				? `parent ${parent.id} (${parent.source || 'no source'}) has no session key`
				: parent.source === o.source
					? `parent ${parent.id} belongs to another profile`
					: `parent ${parent.id} is a ${parent.source || 'sourceless'} row, this is ${o.source || 'sourceless'}`;
	return refused(base, 'parent_not_keyed', `parent session carries no gateway identity of this source (${detail})`);
}

/** SQL `x BETWEEN lo AND hi` and `x < y` on cells: a NULL on either side is never true. */
function between(x: Cell, lo: number, hi: number): boolean {
	return x !== null && compareCells(x, lo) >= 0 && compareCells(x, hi) <= 0;
}

function byContiguity(o: SessionRecord, base: Base, judge: Judge, orphanOwner: string | null): OrphanVerdict {
	// Python: `started = orphan["started_at"] or 0`; a TEXT cell would make Hermes raise.
	const startedCell = o.startedAtRaw;
	if (startedCell !== null && typeof startedCell !== 'number' && typeof startedCell !== 'bigint') {
		return refused(
			base,
			'no_predecessor',
			`started_at is not a number ` +
				`(${JSON.stringify(String(startedCell)).slice(0, 40)}): no time window ` +
				`can be placed (Hermes' own repair-routing would fail on this row)`,
		);
	}

	// Any stored number counts as is, even one outside the epoch window (inf gives an empty window).
	const started = (typeof startedCell === 'bigint' ? Number(startedCell) : startedCell) || 0;
	const {gap} = judge;
	const oLast = judge.activity(o);
	const candidates =
		oLast === null
			? []
			: (judge.keyed.get(o.source) ?? [])
					.filter(
						({row, lastActive: la}) =>
							row.id !== o.id &&
							compatibleUsers(row.userId, o.userId) &&
							between(la, started - gap, started + gap) &&
							compareCells(la, oLast) < 0 &&
							(!judge.rules.profileFence || passesFence(row, judge.owner, orphanOwner)),
					)
					.sort((a, b) => compareCells(b.lastActive, a.lastActive) || (a.row.id < b.row.id ? 1 : -1))
					.slice(0, 2);
	if (candidates.length === 0) {
		return refused(
			base,
			'no_predecessor',
			`no keyed predecessor fell quiet within ${formatGap(gap)}s of this session's start`,
		);
	}

	if (candidates.length > 1) {
		return refused(
			base,
			'ambiguous_predecessor',
			'ambiguous: more than one keyed predecessor matches this window',
			candidates.map(c => c.row.id),
		);
	}

	const donor = candidates[0]!;
	const quietFor = started - (numeric(donor.lastActive) ?? started);
	return verdict(base, {
		verdict: 'adoptable',
		evidence: 'contiguity',
		donorId: donor.row.id,
		sessionKey: donor.row.sessionKey,
		reasonKind: null,
		reason:
			`the only keyed ${o.source} row that fell quiet ` +
			`within ${formatGap(gap)}s of this session's start ` +
			`(${quietFor >= 0 ? `${Math.round(quietFor)}s before` : `${Math.round(-quietFor)}s after`} it)`,
		candidateDonors: [donor.row.id],
	});
}

/** Contest pass: two or more adoptable orphans naming the same donor are all refused (they keep donor and evidence). */
function refuseContested(records: OrphanVerdict[]): void {
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
}

/**
 * Every row repair-routing lists, with its verdict, in its order (started_at ASC). The caller
 * checks repairRoutingCrashOf (repair-routing-crash.ts) first: where the generation's scan fails, it lists nothing.
 */
export function findOrphans(sessions: readonly SessionRecord[], options: OrphanOptions): OrphanVerdict[] {
	const rules = options.rules ?? rulesFor('v30');
	const owner = options.owner;
	// ORDER BY started_at ASC, in SQLite's order of cells (NULL, numbers, TEXT, BLOBs).
	const orphans = sessions
		.filter(isOrphanCandidate)
		.sort((a, b) => compareCells(a.startedAtRaw, b.startedAtRaw) || (a.id < b.id ? -1 : 1));
	const activity = activityOf(rules);
	const judge: Judge = {
		rules,
		owner,
		gap: options.maxGapSeconds ?? DEFAULT_MAX_GAP_SECONDS,
		parents: options.byId ?? parentsOf(orphans, sessions),
		keyed: keyedBySource(sessions, new Set(orphans.map(o => o.source)), activity),
		activity,
	};
	const records = orphans.map(o => {
		const orphanOwner = effectiveProfile(o.profileName, owner);
		const base: Base = {
			orphanId: o.id,
			source: o.source,
			messageCount: o.messageRows ?? (o.hasMessageRows ? Math.max(1, o.messageCountColumn) : 0),
			startedAt: numeric(o.startedAtRaw),
			lastActive: numeric(activity(o)),
			profileOwner: orphanOwner,
			localSurface: LOCAL_SURFACES.has(o.source),
		};
		return o.parentSessionId ? byLineage(o, base, judge, orphanOwner) : byContiguity(o, base, judge, orphanOwner);
	});
	refuseContested(records);
	return records;
}
