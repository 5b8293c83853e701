/**
 * `hfx diff A B` in words and as JSON (forensics/analysis/diff.ts decides; this only says it). The text
 * leads with what an operator asks after a restart: a rollback that happened between A and B, then
 * each chat whose restart target or newest message moved, then sessions and gateway_routing.
 * Lines are built to fit 80 columns (ids and keys as long as Hermes makes them).
 */
import type {
	ChatDiff,
	ChatMoment,
	Diff,
	RoutingMove,
	SessionDiff,
	SessionSummary,
} from '../../forensics/analysis/diff.js';
import type {ImageKind} from '../../store/read/image.js';
import {plural, utc} from '../../text/format.js';
import {rollbackJson, rollbackLines} from './rollbacks.js';

/** What each side is, for the header and the JSON. */
export type DiffSideInfo = {
	kind: ImageKind;
	/** The path given, resolved. */
	path: string;
	/** The store's path inside an archive; null for a store read where it lies. */
	member: string | null;
	/** When the image was taken, where it says so (an hfx archive's manifest). */
	takenAt: number | null;
	/** The gateway_routing scope it was judged by (null where the table has none). */
	routingScope: string | null;
	sessions: number;
	messages: number;
	schemaVersion: number | null;
	openMode: 'in-place' | 'private-copy';
};

const KIND_WORDS: Record<ImageKind, string> = {
	store: 'store',
	archive: 'archive',
	'quick-snapshot': 'quick snapshot',
	'emergency-snapshot': 'emergency snapshot',
	'retired-capture': 'retired-WAL capture',
};

function sideLines(label: 'A' | 'B', s: DiffSideInfo): string[] {
	const taken = s.takenAt === null ? '' : `taken ${utc(s.takenAt)} UTC; `;
	const member = s.member === null ? '' : `${s.member}: `;
	return [
		`${label}  ${KIND_WORDS[s.kind]}  ${s.path}`,
		`   ${taken}${member}${plural(s.sessions, 'session')}, ${plural(s.messages, 'message')}, ` +
			`schema ${s.schemaVersion ?? '?'}`,
	];
}

function at(moment: ChatMoment | null, pick: 'restartResumes' | 'newestIn'): string {
	if (moment === null) {
		return '(not in this side)';
	}

	if (pick === 'restartResumes') {
		return moment.restartResumes ?? '(a new, empty session)';
	}

	return moment.newestIn === null ? '(no messages)' : `${moment.newestIn}  ${utc(moment.newestAt)} UTC`;
}

function same(a: string, b: string): string {
	return a === b ? '(the same)' : b;
}

function what(c: ChatDiff): string {
	return (
		[
			c.rolledBack ? 'rolled back' : '',
			c.targetChanged ? 'restart target changed' : '',
			c.newestMoved ? 'newest message moved' : '',
		]
			.filter(Boolean)
			.join(', ') || 'routing changed'
	);
}

/** One changed chat: what a restart resumes and where the newest message is, in A then B. */
export function chatDiffLines(c: ChatDiff): string[] {
	const mark = c.rolledBack || c.targetChanged ? '✗' : '~';
	const risk = (m: ChatMoment | null) => (m === null ? '-' : m.rollbackRisk ? 'yes' : 'no');
	return [
		`${mark} ${c.sessionKey}`,
		`    ${what(c)}`,
		`    restart resumes    A ${at(c.a, 'restartResumes')}`,
		`                       B ${same(at(c.a, 'restartResumes'), at(c.b, 'restartResumes'))}`,
		`    newest message in  A ${at(c.a, 'newestIn')}`,
		`                       B ${same(at(c.a, 'newestIn'), at(c.b, 'newestIn'))}`,
		`    rollback risk      A ${risk(c.a)}, B ${risk(c.b)}`,
	];
}

function messagesWords(d: SessionDiff): string[] {
	const delta = d.messages.b - d.messages.a;
	const sign = delta > 0 ? `+${delta}` : String(delta);
	const lines = d.messages.a === d.messages.b ? [] : [`messages ${d.messages.a} → ${d.messages.b} (${sign})`];
	if (d.newestAt.a !== d.newestAt.b) {
		lines.push(`newest message ${utc(d.newestAt.a)} → ${utc(d.newestAt.b)} UTC`);
	}

	return lines;
}

/** One changed session: its messages, its end stamps, its identity columns. */
export function sessionDiffLines(d: SessionDiff): string[] {
	const ended = (t: number | null, reason: string | null) =>
		t === null && reason === null ? 'open' : `${utc(t)} UTC (${reason ?? 'no reason'})`;
	const facts = [
		...messagesWords(d),
		...(d.ended ? [`ended ${ended(d.ended.a, d.ended.reasonA)} → ${ended(d.ended.b, d.ended.reasonB)}`] : []),
		...d.identity.map(i => `${i.column} ${i.a ?? '(null)'} → ${i.b ?? '(null)'}`),
	];
	return [`  ~ ${d.id}  ${d.sessionKey ?? '(keyless)'}`, ...facts.map(f => `      ${f}`)];
}

function summaryLines(mark: '+' | '-', s: SessionSummary): string[] {
	return [
		`  ${mark} ${s.id}  ${s.sessionKey ?? `(keyless, ${s.source || 'no source'})`}`,
		`      ${plural(s.messages, 'message')}, newest ${utc(s.newestAt)} UTC`,
	];
}

/** One gateway_routing move, in one or two lines. */
export function routingMoveLines(m: RoutingMove): string[] {
	const id = (x: RoutingMove['a']) => x?.sessionId ?? '(no session id)';
	switch (m.kind) {
		case 'added': {
			return [`  + ${m.sessionKey}`, `      added → ${id(m.b)}`];
		}

		case 'removed': {
			return [`  - ${m.sessionKey}`, `      removed (it named ${id(m.a)})`];
		}

		case 'repointed': {
			return [`  ~ ${m.sessionKey}`, `      repointed ${id(m.a)} → ${id(m.b)}`];
		}

		default: {
			return [
				`  ~ ${m.sessionKey}`,
				`      re-stamped ${utc(m.a?.updatedAt)} → ${utc(m.b?.updatedAt)} UTC (the same session)`,
			];
		}
	}
}

function* sectionLines(diff: Diff): Generator<string> {
	const changed = diff.chats.filter(c => c.changed);
	yield '';
	yield `Chats: ${diff.chats.length}, ${changed.length} changed`;
	for (const c of changed) {
		yield* chatDiffLines(c);
	}

	const s = diff.sessions;
	yield '';
	yield `Sessions: ${s.added.length} added, ${s.removed.length} ` +
		`removed, ${s.changed.length} changed, ${s.unchanged} unchanged`;
	yield* s.added.flatMap(x => summaryLines('+', x));
	yield* s.removed.flatMap(x => summaryLines('-', x));
	for (const d of s.changed) {
		yield* sessionDiffLines(d);
	}

	yield '';
	yield `gateway_routing: ${plural(diff.routing.length, 'move')}`;
	yield* diff.routing.flatMap(routingMoveLines);
}

/** The whole report: both sides, the rollbacks between them, chats, sessions, routing. */
export function* diffLines(sides: {a: DiffSideInfo; b: DiffSideInfo}, diff: Diff): Generator<string> {
	yield* sideLines('A', sides.a);
	yield* sideLines('B', sides.b);
	for (const r of diff.rollbacks.inBOnly) {
		yield '';
		yield 'A rollback happened between A and B (in B, not in A):';
		if (sides.b.kind !== 'store') {
			yield `(B is ${KIND_WORDS[sides.b.kind] === 'archive' ? 'an' : 'a'} ${KIND_WORDS[sides.b.kind]}: ` +
				`its next step is for the store it was taken of)`;
		}

		yield* rollbackLines(r).filter(l => l !== '');
	}

	if (diff.rollbacks.inAOnly.length > 0) {
		yield '';
		yield `In A, not in B: ${plural(diff.rollbacks.inAOnly.length, 'rollback')} ` +
			`(${diff.rollbacks.inAOnly.map(r => r.sessionKey).join(', ')}): A is the ` +
			`later moment, or B was repaired`;
	}

	if (unchanged(diff)) {
		yield '';
		yield 'Nothing changed between A and B: the same sessions, message counts, end stamps';
		yield 'and identity columns, the same gateway_routing.';
	}

	yield* sectionLines(diff);
}

function unchanged(d: Diff): boolean {
	const s = d.sessions;
	return (
		d.rollbacks.inBOnly.length +
			d.rollbacks.inAOnly.length +
			d.routing.length +
			s.added.length +
			s.removed.length +
			s.changed.length ===
			0 && !d.chats.some(c => c.changed)
	);
}

/** A restore's dry run, per chat: A the live store now, B the archive (what a restart resumes once it is restored). */
export function restorePreviewLines(chats: readonly ChatDiff[]): string[] {
	const changed = chats.filter(c => c.changed);
	if (changed.length === 0) {
		return [
			`  per chat (${plural(chats.length, 'chat')}): after the restore a restart resumes the same sessions as now`,
		];
	}

	return [
		`  per chat, A the live store now and B after the restore ` +
			`(${changed.length} of ${plural(chats.length, 'chat')} change):`,
		...changed.flatMap(c => chatDiffLines(c).map(l => `  ${l}`)),
	];
}

/**
 * The JSON document: both sides, then the diff as forensics/analysis/diff.ts decides it (rollbacks as hfx scan shows
 * them).
 */
export function diffJson(sides: {a: DiffSideInfo; b: DiffSideInfo}, diff: Diff) {
	return {
		a: sides.a,
		b: sides.b,
		rollbacks: {inBOnly: diff.rollbacks.inBOnly.map(rollbackJson), inAOnly: diff.rollbacks.inAOnly.map(rollbackJson)},
		chats: diff.chats,
		sessions: diff.sessions,
		routing: diff.routing,
		summary: {
			chatsChanged: diff.chats.filter(c => c.changed).length,
			restartTargetChanged: diff.chats.filter(c => c.targetChanged).map(c => c.sessionKey),
			rolledBackBetween: diff.rollbacks.inBOnly.map(r => r.sessionKey),
			sessionsAdded: diff.sessions.added.length,
			sessionsRemoved: diff.sessions.removed.length,
			sessionsChanged: diff.sessions.changed.length,
			routingMoves: diff.routing.length,
		},
	};
}
