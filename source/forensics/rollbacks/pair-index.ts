/**
 * The rollback probe pairs (rollback-pairs.ts) kept up to date as rows change, so that a commit costs in proportion to
 * what it changed: a message appended to one keyed chat re-pairs that row against the keyless gateway rows and the
 * rows of its key, not twenty thousand sessions. The same set as `rollbackProbePairs` (the property test in
 * test/forensics/rollbacks/pair-index.test.ts holds it to that), in one order: by orphan id, then keyed id. Pure.
 */
import {
	type RowPair,
	UNKNOWN_SOURCE,
	compatibleIdentity,
	isSkippedCandidate,
	passedOver,
	sameSourceOrUnknown,
	writtenAround,
} from './rollback-pairs.js';
import {RECOVERABLE_END_REASONS} from '../end-reasons.js';
import type {SessionRecord} from '../types.js';

/** Rows paired per step of a stepped `reset` (5,000 rows held the bench store's first read 50-65 ms under load). */
const RESET_CHUNK = 2500;

/** One changed row: what it was (undefined: new) and what it is (undefined: gone). */
export type RowChange = {was: SessionRecord | undefined; now: SessionRecord | undefined};

type ById = Map<string, SessionRecord>;

function addTo(map: Map<string, ById>, group: string, s: SessionRecord): void {
	let rows = map.get(group);
	if (!rows) {
		rows = new Map();
		map.set(group, rows);
	}

	rows.set(s.id, s);
}

function removeFrom(map: Map<string, ById>, group: string, id: string): void {
	const rows = map.get(group);
	if (rows?.delete(id) && rows.size === 0) {
		map.delete(group);
	}
}

const byIds = (a: RowPair, b: RowPair): number =>
	a.orphan.id < b.orphan.id
		? -1
		: a.orphan.id > b.orphan.id
			? 1
			: a.keyed.id < b.keyed.id
				? -1
				: a.keyed.id > b.keyed.id
					? 1
					: 0;

export class RollbackPairIndex {
	/** Rows of each non-empty session key (the siblings). */
	private readonly byKey = new Map<string, ById>();
	/** Keyed rows (non-empty key) with a message, by source: what an orphan pairs with. */
	private readonly keyedBySource = new Map<string, ById>();
	/** Keyless gateway rows with messages (isSkippedCandidate). */
	private readonly orphans: ById = new Map();
	private readonly siblings = new Map<string, RowPair[]>();
	/** Orphan id -> keyed id -> pair; and keyed id -> the orphans it pairs with. */
	private readonly orphanPairs = new Map<string, Map<string, RowPair>>();
	private readonly pairedWith = new Map<string, Set<string>>();
	private sorted: RowPair[] | null = [];

	constructor(private readonly localSurfaces: ReadonlySet<string>) {}

	/** Every pair, by orphan id then keyed id. */
	pairs(): RowPair[] {
		if (this.sorted === null) {
			const all: RowPair[] = [];
			for (const list of this.siblings.values()) {
				all.push(...list);
			}

			for (const pairs of this.orphanPairs.values()) {
				all.push(...pairs.values());
			}

			this.sorted = all.sort(byIds);
		}

		return this.sorted;
	}

	/** Starts over from these rows. */
	reset(sessions: readonly SessionRecord[]): void {
		// Run to its end (analysis/steps.ts `drain`, a room above this one).
		for (const steps = this.resetSteps(sessions); !steps.next().done; ) {
			// each step pairs the next chunk
		}
	}

	/**
	 * As `reset`, `chunk` rows a step (the same pairs as `update` with every row at once): the rows are indexed a chunk
	 * a step, then each key's siblings and each orphan are paired once, with the last chunk. Each chunk was an `update`
	 * before: a key whose rows fell in several chunks was paired again with each, and every keyed row of a later chunk
	 * was tried against every orphan of the earlier ones whatever its source (on the 1M-message bench store the reset
	 * was 27 ms of the TUI's first read in a CPU profile; 21,516 rows, 1,791 keys, 9 chunks).
	 */
	*resetSteps(sessions: readonly SessionRecord[], chunk = RESET_CHUNK): Generator<void, void> {
		for (const map of [
			this.byKey,
			this.keyedBySource,
			this.orphans,
			this.siblings,
			this.orphanPairs,
			this.pairedWith,
		]) {
			map.clear();
		}

		this.sorted = null;
		const keys = new Set<string>();
		for (let at = 0; at < sessions.length; at += chunk) {
			if (at > 0) {
				yield;
			}

			for (let i = at; i < Math.min(at + chunk, sessions.length); i++) {
				this.index(sessions[i]!, keys);
			}
		}

		for (const key of keys) {
			this.pairSiblings(key);
		}

		for (const o of this.orphans.values()) {
			this.pairOrphan(o);
		}
	}

	/** Applies changed rows: only their keys' siblings and the pairs naming them are computed again. */
	update(changes: Iterable<RowChange>): void {
		const keys = new Set<string>();
		const changed: SessionRecord[] = [];
		for (const {was, now} of changes) {
			if (was) {
				this.unindex(was, keys);
			}

			if (now) {
				this.index(now, keys);
				changed.push(now);
			}
		}

		for (const key of keys) {
			this.pairSiblings(key);
		}

		const fresh = new Set(changed.map(s => s.id));
		for (const s of changed) {
			if (this.orphans.has(s.id)) {
				this.pairOrphan(s);
			}
		}

		// The orphans that did not change (those that did were paired above) against each changed keyed row: none at a
		// `reset`, whose every row is fresh (asking each keyed row of every orphan held its first read 30-120 ms).
		const unchanged = [...this.orphans.values()].filter(o => !fresh.has(o.id));
		for (const k of unchanged.length === 0 ? [] : changed) {
			if (this.keyedBySource.get(k.source)?.has(k.id)) {
				for (const o of unchanged) {
					if (o.source === k.source || o.source === UNKNOWN_SOURCE) {
						this.tryPair(o, k);
					}
				}
			}
		}

		this.sorted = null;
	}

	private index(s: SessionRecord, keys: Set<string>): void {
		if (s.sessionKey !== null && s.sessionKey !== '') {
			keys.add(s.sessionKey);
			addTo(this.byKey, s.sessionKey, s);
			if (s.newestMessageAt !== null) {
				addTo(this.keyedBySource, s.source, s);
			}
		}

		if (isSkippedCandidate(s, this.localSurfaces)) {
			this.orphans.set(s.id, s);
		}
	}

	/** Drops a row and every orphan pair naming it (its key's siblings are paired again by the caller). */
	private unindex(s: SessionRecord, keys: Set<string>): void {
		if (s.sessionKey !== null && s.sessionKey !== '') {
			keys.add(s.sessionKey);
			removeFrom(this.byKey, s.sessionKey, s.id);
			removeFrom(this.keyedBySource, s.source, s.id);
		}

		this.orphans.delete(s.id);
		for (const keyedId of this.orphanPairs.get(s.id)?.keys() ?? []) {
			this.pairedWith.get(keyedId)?.delete(s.id);
		}

		this.orphanPairs.delete(s.id);
		for (const orphanId of this.pairedWith.get(s.id) ?? []) {
			this.orphanPairs.get(orphanId)?.delete(s.id);
		}

		this.pairedWith.delete(s.id);
	}

	/** rollback-pairs.ts siblingPairs, for one key. */
	private pairSiblings(key: string): void {
		const rows = [...(this.byKey.get(key)?.values() ?? [])];
		const pairs: RowPair[] = [];
		if (rows.length > 1) {
			for (const newer of rows) {
				if (newer.endReason === null || RECOVERABLE_END_REASONS.has(newer.endReason)) {
					for (const older of rows) {
						if (passedOver(newer, older)) {
							pairs.push({orphan: newer, keyed: older});
						}
					}
				}
			}
		}

		if (pairs.length > 0) {
			this.siblings.set(key, pairs);
		} else {
			this.siblings.delete(key);
		}
	}

	/** One orphan against every keyed row it may pair with (rollback-pairs.ts rollbackProbePairs). */
	private pairOrphan(o: SessionRecord): void {
		const groups = o.source === UNKNOWN_SOURCE ? [...this.keyedBySource.values()] : [this.keyedBySource.get(o.source)];
		for (const group of groups) {
			for (const k of group?.values() ?? []) {
				this.tryPair(o, k);
			}
		}
	}

	private tryPair(o: SessionRecord, k: SessionRecord): void {
		if (k.id === o.id || !sameSourceOrUnknown(o, k) || !compatibleIdentity(o, k) || !writtenAround(o, k)) {
			return;
		}

		let pairs = this.orphanPairs.get(o.id);
		if (!pairs) {
			pairs = new Map();
			this.orphanPairs.set(o.id, pairs);
		}

		pairs.set(k.id, {orphan: o, keyed: k});
		let orphans = this.pairedWith.get(k.id);
		if (!orphans) {
			orphans = new Set();
			this.pairedWith.set(k.id, orphans);
		}

		orphans.add(o.id);
	}
}
