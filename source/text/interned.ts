/**
 * One instance per distinct string: a bounded pool that hands back the first instance it saw of each value (issue
 * #26). SQLite hands every row's cells over as fresh strings, so 21,516 session records read from the bench store
 * held 21,517 copies of 13 sources, 19,569 of 11 end reasons, 21,517 of 4 models, 13,509 of 1,791 session keys… (a
 * heap snapshot of the TUI following a writer: ~3.7 MB of the live heap were such copies).
 */

/** Distinct values kept before the pool starts afresh: a store of new values each time cannot grow it without end. */
export const POOL_LIMIT = 65_536;

export class StringPool {
	private readonly pool = new Map<string, string>();

	constructor(private readonly limit = POOL_LIMIT) {}

	/** The pool's instance of `value` (`value` itself the first time it is seen). */
	intern(value: string): string {
		const kept = this.pool.get(value);
		if (kept !== undefined) {
			return kept;
		}

		if (this.pool.size >= this.limit) {
			this.pool.clear();
		}

		this.pool.set(value, value);
		return value;
	}

	/** How many distinct values it holds. */
	get size(): number {
		return this.pool.size;
	}
}
