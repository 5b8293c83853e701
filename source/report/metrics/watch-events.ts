/**
 * What `hfx watch` reports as events (one JSON line each, for journald and log shippers): what
 * changed between two readings of one store. A rollback that already happened (seen, or no longer
 * seen), a rollback risk raised or cleared, an orphan that
 * appeared or went, a chat that rotated to a new session, a WAL reset, a backup older than the
 * bound, a store hfx could no longer (or again) read, and every other finding `hfx scan` reports
 * (its kind as the event, `-cleared` when it goes: finding-signals.ts). Pure: two digests in, events out.
 * Events name the chat and sessions (the operator needs them for the next command); metrics never do.
 */
import type {StoreReading} from './metrics-samples.js';
import type {Rollback} from '../../forensics/rollbacks/rollbacks.js';
import {duration} from '../../forensics/duration.js';
import {rollbackAdoptCommand, utcMinute} from '../../forensics/rollbacks/rollback-finding.js';
import type {Finding} from '../../forensics/finding.js';
import {type FindingKind, OWN_EVENT_KINDS} from './finding-signals.js';

export type WatchEvent = {
	event:
		| 'rollback-happened'
		| 'rollback-happened-cleared'
		| 'rollback-risk-raised'
		| 'rollback-risk-cleared'
		| 'orphan-appeared'
		| 'orphan-gone'
		| 'rotation'
		| 'wal-reset'
		| 'backup-stale'
		| 'backup-fresh'
		| 'store-down'
		| 'store-up'
		| 'store-removed'
		| FindingKind
		| `${FindingKind}-cleared`;
	profile: string;
	/** Unix seconds of the reading that saw it. */
	at: number;
	message: string;
	[field: string]: unknown;
};

type Risk = {resumes: string | null; newestIn: string | null};

/** A rollback that already happened, by its facts (forensics/rollbacks/rollbacks.ts), as its event carries them. */
type RolledBack = {
	sessionKey: string;
	resumedId: string;
	jumpedFrom: number;
	resumedAt: number;
	skippedId: string;
	skippedMessages: number;
	skippedFirstAt: number;
	skippedLastAt: number;
	writtenSince: {messages: number; userTurns: number; lastAt: number};
	certainty: string;
	evidence: string[];
	/** The adoption preview's command (without the profile). */
	adopt: string;
};

export type Digest = {
	up: boolean;
	reason: string | null;
	line: string | null;
	/** By chat and skipped row. */
	rollbacks: ReadonlyMap<string, RolledBack>;
	risks: ReadonlyMap<string, Risk>;
	orphans: ReadonlyMap<string, {verdict: string; reasonKind: string | null}>;
	/** Every other finding (not a rollback, a risk or an orphan), by kind and subject. */
	findings: ReadonlyMap<string, Finding>;
	/** Per chat: the session a restart resumes. */
	resolves: ReadonlyMap<string, string | null>;
	walReset: string | null;
	stale: {verified: boolean; drilled: boolean};
	ages: {verified: number | null; drilled: number | null};
};

const EMPTY: Digest = {
	up: true,
	reason: null,
	line: null,
	rollbacks: new Map(),
	risks: new Map(),
	orphans: new Map(),
	findings: new Map(),
	resolves: new Map(),
	walReset: null,
	stale: {verified: false, drilled: false},
	ages: {verified: null, drilled: null},
};

function rolledBackOf(r: Rollback): RolledBack {
	const s = r.skipped;
	return {
		sessionKey: r.sessionKey,
		resumedId: r.resumedId,
		jumpedFrom: r.jumpedFrom,
		resumedAt: r.resumedAt,
		skippedId: s.id,
		skippedMessages: s.messages,
		skippedFirstAt: s.firstAt,
		skippedLastAt: s.lastAt,
		writtenSince: r.after,
		certainty: r.certainty,
		evidence: s.evidence,
		adopt: rollbackAdoptCommand(r),
	};
}

/**
 * The parts of a reading the events compare. Of a store hfx could not read, what it knew stays (unknown is not
 * cleared).
 */
export function digestOf(r: StoreReading, boundSeconds: number, prev: Digest = EMPTY): Digest {
	const stale = (age: number | null) => age === null || age > boundSeconds;
	const base = {
		walReset: r.files?.walReset ?? null,
		stale: {verified: stale(r.backups.verifiedAgeSeconds), drilled: stale(r.backups.drilledAgeSeconds)},
		ages: {verified: r.backups.verifiedAgeSeconds, drilled: r.backups.drilledAgeSeconds},
	};
	if (!r.result.ok) {
		return {...prev, ...base, up: false, reason: r.result.kind, line: r.result.line};
	}

	const {analysis} = r.result;
	return {
		...base,
		up: true,
		reason: null,
		line: null,
		rollbacks: new Map(analysis.rollbacks.map(r => [`${r.sessionKey}\0${r.skipped.id}`, rolledBackOf(r)])),
		risks: new Map(
			analysis.routing
				.filter(c => c.rollbackRisk)
				.map(c => [c.sessionKey, {resumes: c.restartResolvesTo, newestIn: c.newestActivityIn}]),
		),
		orphans: new Map(analysis.orphans.map(o => [o.orphanId, {verdict: o.verdict, reasonKind: o.reasonKind}])),
		findings: new Map(
			analysis.findings.filter(f => !OWN_EVENT_KINDS.has(f.kind)).map(f => [`${f.kind}\0${f.subject}`, f]),
		),
		resolves: new Map(analysis.routing.map(c => [c.sessionKey, c.restartResolvesTo])),
	};
}

/**
 * A rollback first seen, and one no longer seen (its conversation adopted, or a row of it gone). Never "do not
 * restart": the restart is done.
 */
function rollbackEvents(
	prev: Digest,
	next: Digest,
	profile: string,
	ev: (e: Omit<WatchEvent, 'profile' | 'at'>) => WatchEvent,
): WatchEvent[] {
	const out: WatchEvent[] = [];
	for (const [id, {adopt, ...r}] of next.rollbacks) {
		if (!prev.rollbacks.has(id)) {
			const command = profile === 'default' ? adopt : adopt.replace('hfx repair ', `hfx repair --profile ${profile} `);
			const then = `preview its adoption with: ${command} (then stop the gateway and add --apply)`;
			const turns =
				`${r.writtenSince.userTurns} user ` +
				`turn${r.writtenSince.userTurns === 1 ? '' : 's'} ` +
				`(${r.writtenSince.messages} messages)`;
			out.push(
				ev({
					event: 'rollback-happened',
					...r,
					next: then,
					message:
						`rolled back: at ${utcMinute(r.resumedAt)} a restart ` +
						`resumed ${r.resumedId} for ${r.sessionKey}, a ` +
						`context ${duration(r.resumedAt - r.jumpedFrom)} old; ` +
						`the ${r.skippedMessages} messages it skipped ` +
						`(${utcMinute(r.skippedFirstAt)} to ${utcMinute(r.skippedLastAt)}) are ` +
						`stranded in the keyless ${r.skippedId} ` +
						`(certainty ${r.certainty}); ${turns} written into ${r.resumedId} since. ` +
						`Next: ${then}`,
				}),
			);
		}
	}

	for (const [id, r] of prev.rollbacks) {
		if (!next.rollbacks.has(id)) {
			out.push(
				ev({
					event: 'rollback-happened-cleared',
					sessionKey: r.sessionKey,
					resumedId: r.resumedId,
					skippedId: r.skippedId,
					message:
						`rollback no longer seen: ${r.skippedId} of ${r.sessionKey} carries a ` +
						`routing identity again, or a row of it changed or went`,
				}),
			);
		}
	}

	return out;
}

function riskEvents(
	prev: Digest,
	next: Digest,
	ev: (e: Omit<WatchEvent, 'profile' | 'at'>) => WatchEvent,
): WatchEvent[] {
	const out: WatchEvent[] = [];
	for (const [key, risk] of next.risks) {
		if (!prev.risks.has(key)) {
			out.push(
				ev({
					event: 'rollback-risk-raised',
					sessionKey: key,
					...risk,
					next: 'do not restart the gateway; hfx scan, then hfx repair',
					message:
						`rollback risk raised: a restart of ${key} would ` +
						`resume ${risk.resumes ?? 'nothing'}, its newest messages are ` +
						`in ${risk.newestIn}. Next: do not restart the gateway; hfx scan, then ` +
						`hfx repair`,
				}),
			);
		}
	}

	for (const key of prev.risks.keys()) {
		if (!next.risks.has(key)) {
			// A risk can end because the restart came: then it did not clear, it happened.
			const happened = [...next.rollbacks.values()].find(r => r.sessionKey === key);
			const message = happened
				? `rollback risk over for ${key}: the restart came and resumed ${happened.resumedId} (see rollback-happened)`
				: `rollback risk cleared: a restart of ${key} resumes its newest conversation`;
			out.push(
				ev({
					event: 'rollback-risk-cleared',
					sessionKey: key,
					resumes: next.resolves.get(key) ?? null,
					rolledBack: happened !== undefined,
					message,
				}),
			);
		}
	}

	return out;
}

function orphanEvents(
	prev: Digest,
	next: Digest,
	ev: (e: Omit<WatchEvent, 'profile' | 'at'>) => WatchEvent,
): WatchEvent[] {
	const out: WatchEvent[] = [];
	for (const [id, o] of next.orphans) {
		if (!prev.orphans.has(id)) {
			out.push(
				ev({
					event: 'orphan-appeared',
					orphanId: id,
					...o,
					message: `orphan appeared: ${id} (${o.verdict}${o.reasonKind ? `, ${o.reasonKind}` : ''}). Next: hfx scan`,
				}),
			);
		}
	}

	for (const id of prev.orphans.keys()) {
		if (!next.orphans.has(id)) {
			out.push(
				ev({
					event: 'orphan-gone',
					orphanId: id,
					message: `orphan gone: ${id} carries a routing identity again (or was removed)`,
				}),
			);
		}
	}

	for (const [key, to] of next.resolves) {
		const from = prev.resolves.get(key);
		if (from !== undefined && from !== to) {
			out.push(
				ev({
					event: 'rotation',
					sessionKey: key,
					from,
					to,
					message: `rotation: a restart of ${key} now resumes ${to ?? 'nothing'} (was ${from ?? 'nothing'})`,
				}),
			);
		}
	}

	return out;
}

/** Every other finding that appeared (in the words `hfx scan` prints) or went. */
function findingEvents(
	prev: Digest,
	next: Digest,
	ev: (e: Omit<WatchEvent, 'profile' | 'at'>) => WatchEvent,
): WatchEvent[] {
	const out: WatchEvent[] = [];
	for (const [id, f] of next.findings) {
		if (!prev.findings.has(id)) {
			out.push(
				ev({
					event: f.kind,
					kind: f.kind,
					severity: f.severity,
					subject: f.subject,
					title: f.title,
					detail: f.detail,
					...(f.ifRestarted ? {ifRestarted: f.ifRestarted} : {}),
					next: f.next,
					message: `${f.title}: ${f.detail}. Next: ${f.next}`,
				}),
			);
		}
	}

	for (const [id, f] of prev.findings) {
		if (!next.findings.has(id)) {
			out.push(
				ev({event: `${f.kind}-cleared`, kind: f.kind, subject: f.subject, message: `no longer seen: ${f.title}`}),
			);
		}
	}

	return out;
}

function backupEvents(
	prev: Digest,
	next: Digest,
	boundSeconds: number,
	ev: (e: Omit<WatchEvent, 'profile' | 'at'>) => WatchEvent,
): WatchEvent[] {
	const out: WatchEvent[] = [];
	for (const kind of ['verified', 'drilled'] as const) {
		const age = next.ages[kind];
		if (next.stale[kind] && !prev.stale[kind]) {
			out.push(
				ev({
					event: 'backup-stale',
					kind,
					ageSeconds: age,
					boundSeconds,
					message:
						`backup stale: ` +
						`${age === null ? `no ${kind} backup` : `the newest ${kind} backup is ${Math.round(age)} s old`} ` +
						`(bound ${boundSeconds} s). ` +
						`Next: ${kind === 'verified' ? 'hfx backup' : 'hfx restore --drill ARCHIVE'}`,
				}),
			);
		} else if (!next.stale[kind] && prev.stale[kind]) {
			out.push(
				ev({
					event: 'backup-fresh',
					kind,
					ageSeconds: age,
					boundSeconds,
					message: `backup fresh again: a ${kind} backup ${Math.round(age ?? 0)} s old`,
				}),
			);
		}
	}

	return out;
}

/**
 * The events between two digests of one store (`prev` undefined: the first reading, compared with a healthy empty
 * store).
 */
export function diffDigests(
	prev: Digest | undefined,
	next: Digest,
	context: {profile: string; at: number; boundSeconds: number},
): WatchEvent[] {
	const before = prev ?? EMPTY;
	const ev = (e: Omit<WatchEvent, 'profile' | 'at'>): WatchEvent =>
		({...e, profile: context.profile, at: context.at}) as WatchEvent;
	const out: WatchEvent[] = [];
	if (!next.up && (before.up || before.reason !== next.reason)) {
		out.push(
			ev({event: 'store-down', reason: next.reason, message: `store unreadable (${next.reason}): ${next.line}`}),
		);
	} else if (next.up && !before.up) {
		out.push(ev({event: 'store-up', message: 'store readable again'}));
	}

	if (next.walReset !== null) {
		out.push(
			ev({
				event: 'wal-reset',
				how: next.walReset,
				message: `WAL reset (${next.walReset}): a checkpoint restarted the -wal file`,
			}),
		);
	}

	if (next.up) {
		out.push(
			...rollbackEvents(before, next, context.profile, ev),
			...riskEvents(before, next, ev),
			...orphanEvents(before, next, ev),
			...findingEvents(before, next, ev),
		);
	}

	out.push(...backupEvents(before, next, context.boundSeconds, ev));
	return out;
}
