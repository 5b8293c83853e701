/**
 * The live store's read-only connection, open only while a read runs: nothing of the store is
 * held between reads (no SHARED lock on `state.db`, no lock or mapping of `-shm`, no descriptor),
 * so the agent's journal-mode switch, checkpoints of every mode and VACUUM never wait on hfx, and
 * hfx is no holder of the store while idle. Each read opens through preflight again (so it follows
 * the file the path names now); a private copy (no owner holds the store) is hfx's own file and is
 * kept between reads until the original changes. Why a read starts over from a full reload: the
 * path names another file now (a restore, a `cp` over it, a link retargeted), or the private copy
 * no longer shows the store.
 */
import fs from 'node:fs';
import {ReadOnlyStore} from './open.js';
import type {Preflight} from './preflight.js';
import {shmHeld} from '../files/shm-owner.js';
import {testPause} from '../../ground/test-pause.js';
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

/**
 * Why a private copy no longer shows the store: the path names another file now, its owner started (-wal and -shm
 * appeared), or the file changed.
 */
function copyStale(given: string, pre: Preflight): string | null {
	let real: string;
	try {
		real = fs.realpathSync(given);
	} catch {
		return 'the store file is gone: read again';
	}

	if (real !== pre.path) {
		return `${given} now links to ${real} (it linked to ${pre.path}): reopened on the new target`;
	}

	let st: fs.Stats;
	try {
		st = fs.statSync(pre.path);
	} catch {
		return 'the store file is gone: read again';
	}

	if (fs.existsSync(`${pre.path}-wal`) && shmOwned(`${pre.path}-shm`)) {
		return 'the agent opened the store (-wal and -shm appeared): now following it in place';
	}

	return st.size !== pre.main.size || st.mtimeMs !== pre.main.mtimeMs || st.ino !== pre.main.ino
		? 'the store file changed while no agent held it: re-read from a fresh private copy'
		: null;
}

/** Why the file read now is not the one read last: another inode, or a link that names another file. */
function replaced(last: Preflight, now: Preflight): string | null {
	if (last.link && now.path !== last.path) {
		return `${last.link.path} now links to ${now.path} (it linked to ${last.path}): reopened on the new target`;
	}

	if (now.main.ino !== last.main.ino || now.main.dev !== last.main.dev) {
		return `${now.path} was replaced on disk (a new inode: a restore or a copy over it): reopened on the new file`;
	}

	return null;
}

/**
 * What a read is given: the open connection and its schema, and why the rows must be read afresh (null: they need not).
 */
export type OpenRead = {store: ReadOnlyStore; schema: SchemaInfo; reopened: string | null};

export class LiveConnection {
	/** The preflight of the last open: the store's real path, its link, its open mode. */
	preflight: Preflight;
	schema: SchemaInfo;
	/** Open during a read, and between reads only on a private copy. */
	private store: ReadOnlyStore | null;
	/** Why the rows must be read afresh, seen by a detail read. */
	private pending: string | null = null;

	/** Takes the first connection (the first read runs on it; `release` closes it after). */
	constructor(
		private readonly path: string,
		store: ReadOnlyStore,
		schema: SchemaInfo,
	) {
		this.store = store;
		this.schema = schema;
		this.preflight = store.preflight;
	}

	get isPrivateCopy(): boolean {
		return this.preflight.openMode === 'private-copy';
	}

	/** The connection of the read running now. */
	get current(): ReadOnlyStore {
		if (!this.store) {
			throw new Error('internal: the live store read outside a read');
		}

		return this.store;
	}

	/**
	 * Runs `fn` on an open connection and closes it after (a private copy stays open). `rows`: the
	 * read that keeps the session index, told when it must read everything afresh.
	 */
	read<T>(fn: (open: OpenRead) => T, rows = true): T {
		const reopened = this.open(rows);
		try {
			testPause('live-read');
			return fn({store: this.current, schema: this.schema, reopened});
		} finally {
			this.release();
		}
	}

	/** Closes an in-place connection: nothing of the store stays held. */
	release(): void {
		if (this.store && !this.store.isPrivateCopy) {
			this.store.close();
			this.store = null;
		}
	}

	close(): void {
		this.store?.close();
		this.store = null;
	}

	/**
	 * Opens (preflight again) unless a private copy that still shows the store is open; says why the rows must be read
	 * afresh.
	 */
	private open(rows: boolean): string | null {
		const stale = this.store ? copyStale(this.path, this.store.preflight) : null;
		if (!this.store || stale) {
			const next = ReadOnlyStore.open(this.path);
			let schema: SchemaInfo;
			try {
				schema = detectSchema(next);
			} catch (error) {
				next.close();
				throw error;
			}

			this.store?.close();
			next.setCacheSizeKib(4096);
			this.store = next;
			this.schema = schema;
		}

		const why = stale ?? this.pending ?? replaced(this.preflight, this.store.preflight);
		if (!rows) {
			// A detail read: the next read of the rows is told.
			this.pending = why;
			return null;
		}

		this.pending = null;
		this.preflight = this.store.preflight;
		return why;
	}
}
