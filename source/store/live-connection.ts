/**
 * The live store's one read-only connection, and when it must be replaced: the path names another
 * file now, or a private copy no longer shows the store. Reopening runs preflight again.
 */
import fs from 'node:fs';
import {ReadOnlyStore} from './open.js';
import {shmHeld} from './shm-owner.js';
import {type SchemaInfo, detectSchema} from './schema.js';

/** A -shm exists and a live connection holds it (or /proc/locks cannot tell: then its presence decides, as before). */
function shmOwned(shm: string): boolean {
	let st: fs.Stats;
	try {
		st = fs.statSync(shm);
	} catch {
		return false;
	}

	return shmHeld(st) !== false;
}

/** Why a store reached through a link must be reopened: the link names another file now. */
function linkMoved(link: string, real: string): string | null {
	let now: string;
	try {
		now = fs.realpathSync(link);
	} catch {
		return null;
	}

	return now === real ? null : `${link} now links to ${now} (it linked to ${real}): reopened on the new target`;
}

export class LiveConnection {
	store: ReadOnlyStore;
	schema: SchemaInfo;
	private openedIno: number;

	constructor(store: ReadOnlyStore, schema: SchemaInfo) {
		this.store = store;
		this.schema = schema;
		this.openedIno = store.preflight.main.ino;
		// A long-lived observer: a small page cache (the OS caches the file anyway).
		store.setCacheSizeKib(4096);
	}

	/**
	 * Why the open connection no longer shows the store: the path names another file now (a
	 * restore, a `cp` over it), or we read a private copy and the original changed since (its
	 * owner started: -wal/-shm appeared; or the file itself changed). Null when it still does.
	 */
	staleReason(): string | null {
		const pre = this.store.preflight;
		let st: fs.Stats;
		try {
			st = fs.statSync(pre.path);
		} catch {
			throw new Error(`${pre.path} disappeared; this view shows the last snapshot`);
		}

		const retargeted = pre.link ? linkMoved(pre.link.path, pre.path) : null;
		if (retargeted) {
			return retargeted;
		}

		if (!this.store.isPrivateCopy) {
			return st.ino === this.openedIno ? null : `${pre.path} was replaced on disk (a new inode: a restore or a copy over it): reopened on the new file`;
		}

		const owner = fs.existsSync(`${pre.path}-wal`) && shmOwned(`${pre.path}-shm`);
		if (owner) {
			return 'the agent opened the store (-wal and -shm appeared): now following it in place';
		}

		return st.size !== pre.main.size || st.mtimeMs !== pre.main.mtimeMs || st.ino !== pre.main.ino ? 'the store file changed while no agent held it: re-read from a fresh private copy' : null;
	}

	/** Replaces the connection (preflight again; in place once an owner holds the store). */
	reopen(path: string): void {
		const next = ReadOnlyStore.open(path);
		let schema: SchemaInfo;
		try {
			schema = detectSchema(next);
		} catch (error) {
			next.close();
			throw error;
		}

		this.store.close();
		next.setCacheSizeKib(4096);
		this.store = next;
		this.schema = schema;
		this.openedIno = next.preflight.main.ino;
	}

	close(): void {
		this.store.close();
	}
}
