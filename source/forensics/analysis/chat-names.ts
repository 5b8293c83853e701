/**
 * Which chats a change of some sessions can reach through their verdicts: the chats that name a session anywhere (the
 * row a restart resolves to, the newest one, the routing entry's, a member, a candidate of the resolution) and the
 * chats whose restart falls back to a routing tuple. The reverse of asking every chat, kept from one incremental
 * analysis to the next and patched where chats were judged again: a commit then costs the chats it reaches, not a walk
 * of every chat (on the bench store that walk was a quarter of the incremental analysis). Pure.
 */
import {type ChatRouting, tupleKey} from '../routing/routing.js';

const tupleKeys = new WeakMap<object, string>();

/** The routing tuple a chat's restart falls back to (cached per identity object: a kept chat keeps its identity). */
export function chatTuple(chat: ChatRouting): string {
	let key = tupleKeys.get(chat.identity);
	if (key === undefined) {
		const id = chat.identity;
		key = tupleKey(id.platform, id.userId, id.chatId, id.chatType, id.threadId);
		tupleKeys.set(chat.identity, key);
	}

	return key;
}

/** Every session a chat's verdict names. */
function namedBy(chat: ChatRouting): string[] {
	const ids = [...chat.members];
	for (const id of [chat.restartResolvesTo, chat.newestActivityIn, chat.routingEntry]) {
		if (id !== null) {
			ids.push(id);
		}
	}

	for (const c of chat.resolution.candidates) {
		ids.push(c.sessionId);
	}

	return ids;
}

/** A name's chats: one key as itself (the common case: a session in one chat), several as a set (less memory). */
type Keys = string | Set<string>;

function add(map: Map<string, Keys>, name: string, key: string): void {
	const keys = map.get(name);
	if (keys === undefined) {
		map.set(name, key);
	} else if (typeof keys === 'string') {
		if (keys !== key) {
			map.set(name, new Set([keys, key]));
		}
	} else {
		keys.add(key);
	}
}

function remove(map: Map<string, Keys>, name: string, key: string): void {
	const keys = map.get(name);
	if (keys === key) {
		map.delete(name);
	} else if (typeof keys === 'object' && keys.delete(key) && keys.size === 0) {
		map.delete(name);
	}
}

export class ChatNames {
	/** Session id -> the keys of the chats naming it. */
	private readonly bySession = new Map<string, Keys>();
	/** Routing tuple -> the keys of the chats falling back to it. */
	private readonly byTuple = new Map<string, Keys>();

	/** The index of every chat of an analysis. */
	static of(routing: readonly ChatRouting[]): ChatNames {
		const names = new ChatNames();
		for (const chat of routing) {
			names.replace(undefined, chat);
		}

		return names;
	}

	/** A copy to patch, this one left as it is (an analysis that is not consumed keeps its own). */
	copy(): ChatNames {
		const names = new ChatNames();
		for (const [from, to] of [
			[this.bySession, names.bySession],
			[this.byTuple, names.byTuple],
		] as const) {
			for (const [name, keys] of from) {
				to.set(name, typeof keys === 'string' ? keys : new Set(keys));
			}
		}

		return names;
	}

	/** Adds to `into` the key of every chat naming one of `ids` or falling back to one of `tuples`. */
	reached(ids: ReadonlySet<string>, tuples: ReadonlySet<string>, into: Set<string>): void {
		for (const [map, names] of [
			[this.bySession, ids],
			[this.byTuple, tuples],
		] as const) {
			for (const name of names) {
				const keys = map.get(name);
				if (typeof keys === 'string') {
					into.add(keys);
				} else {
					for (const key of keys ?? []) {
						into.add(key);
					}
				}
			}
		}
	}

	/** A chat judged again: what it named before (undefined: a new chat) and now (undefined: no chat any more). */
	replace(before: ChatRouting | undefined, after: ChatRouting | undefined): void {
		if (before && after && before.sessionKey === after.sessionKey) {
			this.patch(before, after);
			return;
		}

		if (before) {
			for (const id of namedBy(before)) {
				remove(this.bySession, id, before.sessionKey);
			}

			remove(this.byTuple, chatTuple(before), before.sessionKey);
		}

		if (after) {
			for (const id of namedBy(after)) {
				add(this.bySession, id, after.sessionKey);
			}

			add(this.byTuple, chatTuple(after), after.sessionKey);
		}
	}

	/**
	 * The same chat judged again: only the names it dropped or gained are written. A commit to a chat mostly names the
	 * same sessions, and a Map entry deleted and set again cost V8 2-13 µs (measured on the bench store's 13,510 names:
	 * ~0.12 ms a commit, half of the incremental analysis).
	 */
	private patch(before: ChatRouting, after: ChatRouting): void {
		const key = after.sessionKey;
		const [was, now] = [new Set(namedBy(before)), new Set(namedBy(after))];
		for (const id of was) {
			if (!now.has(id)) {
				remove(this.bySession, id, key);
			}
		}

		for (const id of now) {
			if (!was.has(id)) {
				add(this.bySession, id, key);
			}
		}

		const [from, to] = [chatTuple(before), chatTuple(after)];
		if (from !== to) {
			remove(this.byTuple, from, key);
			add(this.byTuple, to, key);
		}
	}
}
