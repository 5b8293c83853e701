/**
 * A "before" image on a chat's time axis (hfx timeline --before; issue #24 point 4, "the
 * after-the-restart story uses the same diff"; hermes-incidents.md §2.4–2.5): what a restart
 * resumed and where the newest message was at the moment the image froze, what changed for the
 * chat between it and the store (the target, the newest message, a rollback), and the routing
 * entry's moves between the two. From `hfx diff`'s own comparison (forensics/analysis/diff.ts). Pure.
 */
import type {ChatDiff, ChatMoment, Diff, RoutingMove} from '../analysis/diff.js';
import {suffixOf} from '../resolve.js';
import {byTime} from './timeline.js';
import type {Timeline, TimelineEvent} from './timeline-types.js';

/** The image as the diff read it: its path, kind and when it was taken (null: it does not say). */
export type BeforeImageSide = {path: string; kind: string; takenAt: number | null};

function stamp(epoch: number | null): string {
	return epoch === null ? '—' : `${new Date(epoch * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function momentWords(m: ChatMoment | null): string {
	if (m === null) {
		return 'the chat is not in it (no row and no routing entry carries its key)';
	}

	const resumes =
		m.restartResumes === null
			? 'a restart would have started a fresh session'
			: `a restart would have resumed ${suffixOf(m.restartResumes)}`;
	const newest =
		m.newestIn === null ? 'no message' : `its newest message was in ${suffixOf(m.newestIn)} at ${stamp(m.newestAt)}`;
	return `${resumes}; ${newest}${m.rollbackRisk ? ' (at rollback risk then)' : ''}`;
}

/** What moved for the chat between the image and the store, in words (empty: nothing). */
function changes(c: ChatDiff): string[] {
	const out: string[] = [];
	if (c.targetChanged) {
		out.push(
			`what a restart resumes ` +
				`moved: ${c.a?.restartResumes ? suffixOf(c.a.restartResumes) : 'a fresh session'} ` +
				`then, ${c.b?.restartResumes ? suffixOf(c.b.restartResumes) : 'a fresh session'} now`,
		);
	}

	if (c.newestMoved) {
		out.push(
			`the newest message ` +
				`moved: ${c.a?.newestIn ? `${suffixOf(c.a.newestIn)} at ${stamp(c.a.newestAt)}` : 'none'} ` +
				`then, ${c.b?.newestIn ? `${suffixOf(c.b.newestIn)} at ${stamp(c.b.newestAt)}` : 'none'} now`,
		);
	}

	if (c.rolledBack) {
		out.push('a rollback of this chat is in the store and not in the image: it happened after the image was taken');
	}

	return out;
}

function moveWords(m: RoutingMove): string {
	const id = (s: {sessionId: string | null} | null) => (s?.sessionId ? suffixOf(s.sessionId) : '—');
	return m.kind === 'restamped'
		? `gateway_routing[${m.sessionKey}] restamped (still ${id(m.b)})`
		: `gateway_routing[${m.sessionKey}] ${m.kind} between the image and now: ${id(m.a)} → ${id(m.b)}`;
}

/**
 * The image's event: at its taken time when it says so (strong: the file's own word), else at its
 * newest message of the chat (weak: the image was taken at or after it). Null when neither is known.
 */
export function beforeImageEvents(
	sessionKey: string,
	image: BeforeImageSide,
	diff: Pick<Diff, 'chats' | 'routing'>,
): TimelineEvent[] {
	const chat = diff.chats.find(c => c.sessionKey === sessionKey);
	const at = image.takenAt ?? chat?.a?.newestAt ?? null;
	if (at === null) {
		return [];
	}

	const moves = diff.routing.filter(m => m.sessionKey === sessionKey);
	const changed = chat ? changes(chat) : [];
	const when =
		image.takenAt === null
			? `the image says not when it was taken: placed at the chat's newest message in it, the earliest it can be`
			: `taken at ${stamp(image.takenAt)} (the image's own record)`;
	return [
		{
			at,
			kind: 'before-image',
			sessionId: chat?.a?.restartResumes ?? null,
			certainty: image.takenAt === null ? 'weak' : 'strong',
			text:
				`before-image ${image.path} ` +
				`(${image.kind}): ${momentWords(chat?.a ?? null)}` +
				`${changed.length === 0 && moves.length === 0 ? '; nothing of this chat changed since' : ''}`,
			evidence: [when, ...changed, ...moves.map(moveWords)],
		},
	];
}

/** The timeline with the image's event on its axis. */
export function withBeforeImage(t: Timeline, events: readonly TimelineEvent[]): Timeline {
	return {...t, events: [...t.events, ...events].sort(byTime)};
}
