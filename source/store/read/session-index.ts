/**
 * The live store's index of sessions, patched in place as the owner's commits change rows: by id,
 * as one array in slot order, and what each changed session was before the current refresh.
 */
import {indexById} from '../../forensics/analysis/analyze.js';
import type {SessionRecord} from '../../forensics/types.js';

export class SessionIndex {
	/** Session id -> record; the analysis shares this map (no copy per commit). */
	byId = new Map<string, SessionRecord>();
	/**
	 * The same sessions as one array, patched in place (a fresh twenty-thousand-element array per
	 * commit would land in V8's large-object space, straight in the old generation, and make the
	 * heap balloon between collections). `positions` finds a session's slot.
	 */
	list: SessionRecord[] = [];
	/** Records of the sessions the current refresh changes, as they were (for the shared index). */
	before = new Map<string, SessionRecord | undefined>();
	private positionsBuilt: Map<string, number> | null = null;

	/** Takes a full read's sessions as the index. */
	replace(sessions: SessionRecord[]): void {
		this.byId = indexById(sessions);
		// The snapshot's own array (readSnapshot hands over a fresh one); slots are indexed on the
		// first patch, not before the first frame.
		this.list = sessions;
		this.positionsBuilt = null;
	}

	/** Each session's slot in `list`. */
	private get positions(): Map<string, number> {
		if (!this.positionsBuilt) {
			this.positionsBuilt = new Map();
			for (let i = 0; i < this.list.length; i++) {
				this.positionsBuilt.set(this.list[i]!.id, i);
			}
		}

		return this.positionsBuilt;
	}

	/** Sets a session in the index and in its slot of the list. */
	put(record: SessionRecord): void {
		this.byId.set(record.id, record);
		const at = this.positions.get(record.id);
		if (at === undefined) {
			this.positions.set(record.id, this.list.length);
			this.list.push(record);
		} else {
			this.list[at] = record;
		}
	}

	/** Removes a session (the last slot moves into its place). */
	drop(id: string): boolean {
		const at = this.positions.get(id);
		if (at === undefined) {
			return false;
		}

		const last = this.list.pop()!;
		if (at < this.list.length) {
			this.list[at] = last;
			this.positions.set(last.id, at);
		}

		this.positions.delete(id);
		this.byId.delete(id);
		return true;
	}

	/** What the current refresh changed: each remembered session as it was and as it is now. */
	changes(): Array<{was: SessionRecord | undefined; now: SessionRecord | undefined}> {
		return [...this.before].map(([id, was]) => ({was, now: this.byId.get(id)}));
	}

	/** Keeps what a session was before this refresh changes it (the first time only). */
	remember(id: string): void {
		if (!this.before.has(id)) {
			this.before.set(id, this.byId.get(id));
		}
	}
}
