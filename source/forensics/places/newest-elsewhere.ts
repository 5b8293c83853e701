/**
 * "Where is the newest message" beyond state.db, per chat: the turns of the chat's sessions (or
 * its routing key) that only the files beside the store hold, how many, and which file holds the
 * newest. Kept apart from ChatRouting so restart verdicts stay the store's own.
 */
import type {TurnsElsewhere} from './place-verdicts.js';
import type {ChatRouting} from '../routing/routing.js';

export type ChatElsewhere = {
	sessionKey: string;
	/** Turns the live store lacks, over every file. */
	turns: number;
	files: string[];
	newestAt: number | null;
	/** The file holding the newest of them, and what it is. */
	newestFile: string;
	newestKind: TurnsElsewhere['kind'];
	newestSessionId: string | null;
	/** That turn is newer than the chat's newest message in state.db: the newest message is not in the store. */
	newerThanStore: boolean;
};

function chatSessions(chat: ChatRouting): Set<string> {
	const ids = new Set(chat.members);
	for (const id of [chat.routingEntry, chat.restartResolvesTo, chat.newestActivityIn, ...chat.adoptableOrphans]) {
		if (id) {
			ids.add(id);
		}
	}

	return ids;
}

export function newestElsewhereOf(chat: ChatRouting, elsewhere: readonly TurnsElsewhere[]): ChatElsewhere | null {
	const ids = chatSessions(chat);
	const mine = elsewhere.filter(
		t => (t.sessionId !== null && ids.has(t.sessionId)) || t.sessionKey === chat.sessionKey,
	);
	if (mine.length === 0) {
		return null;
	}

	// `elsewhere` is newest first.
	const newest = mine[0]!;
	const inStore = chat.newestActivityAt;
	return {
		sessionKey: chat.sessionKey,
		turns: mine.reduce((n, t) => n + t.turns, 0),
		files: [...new Set(mine.map(t => t.file))],
		newestAt: newest.newestAt,
		newestFile: newest.file,
		newestKind: newest.kind,
		newestSessionId: newest.sessionId,
		newerThanStore: newest.newestAt !== null && (inStore === null || newest.newestAt > inStore),
	};
}

/** Per chat with turns elsewhere, in the routing's order. */
export function newestElsewhere(
	routing: readonly ChatRouting[],
	elsewhere: readonly TurnsElsewhere[],
): ChatElsewhere[] {
	if (elsewhere.length === 0) {
		return [];
	}

	return routing.flatMap(chat => {
		const found = newestElsewhereOf(chat, elsewhere);
		return found ? [found] : [];
	});
}
