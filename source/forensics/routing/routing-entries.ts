/**
 * Which routing entry the gateway loads for a chat (docs/hermes-rules.md, routing-scope): only the
 * `gateway_routing` rows of its own scope (the realpath of its sessions folder); for a key those
 * lack, or whose row is unusable, the legacy mirror `sessions/sessions.json`. Rows of other scopes
 * belong to other gateways and never decide a chat.
 */
import type {RoutingEntry} from '../types.js';

export type KeyEntries = {
	own: RoutingEntry[];
	mirror: RoutingEntry[];
	otherScopes: RoutingEntry[];
};

export type ChosenEntry = {
	entry: RoutingEntry | undefined;
	source: 'gateway_routing' | 'sessions.json' | null;
	notes: string[];
};

function slot(map: Map<string, KeyEntries>, key: string): KeyEntries {
	let entries = map.get(key);
	if (!entries) {
		entries = {own: [], mirror: [], otherScopes: []};
		map.set(key, entries);
	}

	return entries;
}

/** Entries by key, in their order (kept per array: the live store hands the same one from commit to commit). */
const keyIndexes = new WeakMap<readonly RoutingEntry[], Map<string, RoutingEntry[]>>();

function byKeyOf(entries: readonly RoutingEntry[]): Map<string, RoutingEntry[]> {
	let index = keyIndexes.get(entries);
	if (!index) {
		index = new Map();
		for (const e of entries) {
			const list = index.get(e.sessionKey);
			list ? list.push(e) : index.set(e.sessionKey, [e]);
		}

		keyIndexes.set(entries, index);
	}

	return index;
}

/** The entries of `keys` (each key's in their order). */
function keysIn(index: ReadonlyMap<string, readonly RoutingEntry[]>, keys: ReadonlySet<string>): RoutingEntry[] {
	const entries: RoutingEntry[] = [];
	for (const key of keys) {
		entries.push(...(index.get(key) ?? []));
	}

	return entries;
}

/**
 * The entries of each key, split by where they come from; `only` limits the keys (incremental
 * refreshes). A key that only other scopes name is not this gateway's chat (see ownsKey).
 */
export function entriesByKey(
	routing: readonly RoutingEntry[],
	mirror: readonly RoutingEntry[],
	scope: string | null,
	only?: ReadonlySet<string>,
): Map<string, KeyEntries> {
	const byKey = new Map<string, KeyEntries>();
	const others: RoutingEntry[] = [];
	// A few keys (a commit's chats): their entries looked up, not every entry walked (1,652 on the bench store).
	const [own, mirrored] = only ? [keysIn(byKeyOf(routing), only), keysIn(byKeyOf(mirror), only)] : [routing, mirror];
	for (const e of own) {
		if (only && !only.has(e.sessionKey)) {
			continue;
		}

		if (scope === null || e.scope === scope) {
			slot(byKey, e.sessionKey).own.push(e);
		} else {
			others.push(e);
		}
	}

	for (const e of mirrored) {
		if (!only || only.has(e.sessionKey)) {
			slot(byKey, e.sessionKey).mirror.push(e);
		}
	}

	for (const e of others) {
		slot(byKey, e.sessionKey).otherScopes.push(e);
	}

	return byKey;
}

/** Does this gateway load an entry for the key (its own scope, or the mirror)? */
export function ownsKey(entries: KeyEntries): boolean {
	return entries.own.length > 0 || entries.mirror.length > 0;
}

/** Attach other-scope entries to keys the store's sessions carry (they explain, never decide). */
export function otherScopeNotes(entries: KeyEntries | undefined): string[] {
	if (!entries || entries.otherScopes.length === 0) {
		return [];
	}

	const scopes = [...new Set(entries.otherScopes.map(e => e.scope || "''"))].join(', ');
	return [
		`gateway_routing also ` +
			`has ${entries.otherScopes.length === 1 ? 'an entry' : `${entries.otherScopes.length} entries`} ` +
			`for this key in another scope (${scopes}): another gateway's, not ` +
			`loaded by this one`,
	];
}

function newest(entries: readonly RoutingEntry[]): RoutingEntry | undefined {
	let best: RoutingEntry | undefined;
	for (const e of entries) {
		if (best === undefined || (e.updatedAt ?? 0) > (best.updatedAt ?? 0)) {
			best = e;
		}
	}

	return best;
}

/**
 * The gateway loads its own scope's row; one that is not valid JSON or names no session is
 * skipped, and then the sessions.json entry fills the key (the DB wins where it is usable).
 */
export function chooseEntry(entries: KeyEntries | undefined): ChosenEntry {
	const notes = otherScopeNotes(entries);
	if (!entries) {
		return {entry: undefined, source: null, notes};
	}

	const own = newest(entries.own.filter(e => e.problem === null));
	if (own) {
		return {entry: own, source: 'gateway_routing', notes};
	}

	const mirror = newest(entries.mirror.filter(e => e.problem === null));
	const broken = newest(entries.own);
	if (broken) {
		notes.push(
			`gateway_routing's entry is skipped by the gateway ` +
				`(${broken.problem})${mirror ? '; sessions.json fills the key' : ''}`,
		);
	}

	if (mirror) {
		return {entry: mirror, source: 'sessions.json', notes};
	}

	return {entry: broken, source: broken ? 'gateway_routing' : null, notes};
}
