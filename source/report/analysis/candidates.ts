/**
 * The candidate donors of an orphan repair-routing refuses, in words: each keyed row it weighed,
 * its chat, and when it fell quiet against the orphan's start (forensics/duration.ts's voice).
 * Shared by `hfx scan`, `hfx repair` and the TUI's Findings pane and repair flow.
 */
import {duration} from '../../forensics/duration.js';
import type {OrphanVerdict} from '../../forensics/routing/orphans.js';
import {suffixOf} from '../../forensics/resolve.js';
import {lastActive} from '../../forensics/time.js';
import type {SessionRecord} from '../../forensics/types.js';
import type {Rollback} from '../../forensics/rollbacks/rollbacks.js';
import {utc} from '../../text/format.js';

export type Candidate = {id: string; sessionKey: string | null; lastActive: number | null; text: string; short: string};

/** How long before the orphan's start a row fell quiet, in a few words. */
function quietShort(at: number | null, started: number | null): string {
	if (at === null || started === null) {
		return at === null ? 'no activity recorded' : 'quiet (no start to compare)';
	}

	const gap = started - at;
	return gap >= 0 ? `quiet ${duration(gap)} before it started` : `active until ${duration(gap)} after it started`;
}

/** When a row fell quiet, said against the orphan's start. */
function quiet(at: number | null, started: number | null): string {
	if (at === null) {
		return 'no activity recorded';
	}

	if (started === null) {
		return 'fell quiet (the orphan has no start time)';
	}

	const gap = started - at;
	const quiet =
		gap >= 0 ? `fell quiet ${duration(gap)} before it started` : `was active until ${duration(gap)} after it started`;
	return `${quiet} (last active ${utc(at)} UTC)`;
}

/**
 * The row a restart resumed over this orphan's conversation, as the first candidate (forensics/rollbacks/rollbacks.ts).
 */
function resumedOver(
	o: OrphanVerdict,
	byId: ReadonlyMap<string, SessionRecord>,
	rollbacks: readonly Rollback[],
): Candidate[] {
	const r = rollbacks.find(x => x.skipped.id === o.orphanId || x.alsoSkipped.some(a => a.id === o.orphanId));
	const row = r ? byId.get(r.resumedId) : undefined;
	if (!r || !row?.sessionKey) {
		return [];
	}

	const since = `${r.after.messages} message${r.after.messages === 1 ? '' : 's'} written into it since`;
	return [
		{
			id: r.resumedId,
			sessionKey: row.sessionKey,
			lastActive: lastActive(row),
			text:
				`candidate donor ${r.resumedId} (${row.sessionKey}): the row a restart ` +
				`resumed over this conversation at ${utc(r.resumedAt)} UTC ` +
				`(rollback, ${r.certainty}; ${since})`,
			short: `candidate ${r.resumedId}: resumed over it at a restart (${r.certainty})`,
		},
	];
}

/** The keyed rows an orphan could be adopted from by the operator's choice (none for an adoptable one). */
export function candidateDonors(
	o: OrphanVerdict,
	byId: ReadonlyMap<string, SessionRecord>,
	rollbacks: readonly Rollback[] = [],
): Candidate[] {
	if (o.verdict !== 'refused' || o.localSurface) {
		return [];
	}

	const resumed = resumedOver(o, byId, rollbacks);
	const ids = [...new Set([...o.candidateDonors, ...(o.donorId ? [o.donorId] : [])])].filter(
		id => id !== resumed[0]?.id,
	);
	return [
		...resumed,
		...ids.flatMap(id => {
			const row = byId.get(id);
			if (!row?.sessionKey) {
				return [];
			}

			const at = lastActive(row);
			return [
				{
					id,
					sessionKey: row.sessionKey,
					lastActive: at,
					text: `candidate donor ${id} (${row.sessionKey}): ${quiet(at, o.startedAt)}`,
					short: `candidate ${id}: ${quietShort(at, o.startedAt)}`,
				},
			];
		}),
	];
}

/** The command that adopts the orphan from one of them, by the operator's choice. */
export function adoptCommand(orphanId: string, donorId: string): string {
	return `hfx repair --only ${suffixOf(orphanId)} --donor ${suffixOf(donorId)}`;
}

/** The candidate lines of a refused orphan, and how to adopt it from one (empty when there is none). */
export function candidateLines(
	o: OrphanVerdict,
	byId: ReadonlyMap<string, SessionRecord>,
	rollbacks: readonly Rollback[] = [],
): string[] {
	const candidates = candidateDonors(o, byId, rollbacks);
	if (candidates.length === 0) {
		return [];
	}

	return [
		...candidates.map(c => c.text),
		`your choice, previewed first: ${adoptCommand(o.orphanId, candidates[0]!.id)}`,
	];
}
