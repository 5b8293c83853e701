/**
 * The live store's read-only connection, open only while a read runs: nothing of the store is
 * held between reads (no SHARED lock on `state.db`, no lock or mapping of `-shm`, no descriptor),
 * so the agent's journal-mode switch, checkpoints of every mode and VACUUM never wait on hfx, and
 * hfx is no holder of the store while idle. Each read opens through preflight again (so it follows
 * the file the path names now). A stopped store (WAL mode, no -wal/-shm) or a crashed one (-wal and
 * -shm no process holds) is read in place as the one-shot reads do (immutable-read.ts: an immutable
 * file, or its -shm read-only), closed after, and the reading stands only if the file and its
 * sidecars were the same before and after: otherwise it is read again from the start (after
 * IMMUTABLE_ATTEMPTS changed readings, through ReadOnlyStore.open). Nothing is copied for them; a
 * private copy (a WAL store with one sidecar missing, node:sqlite missing) is hfx's own file and is
 * kept between reads until the original changes. Whether the owner committed is decided by the
 * commit signature taken with nothing open (live-signature.ts), never by `data_version`, which each
 * fresh connection counts afresh. Why a read starts over from a full reload: the path names another
 * file now (a restore, a `cp` over it, a link retargeted), the agent started, a reading in place saw
 * the file change, or the private copy no longer shows the store.
 */
import fs from 'node:fs';
import {IMMUTABLE_ATTEMPTS, openInPlace} from './immutable-read.js';
import {ReadOnlyStore} from './open.js';
import type {StoreLook} from './live-signature.js';
import {type Preflight, preflight as runPreflight} from './preflight.js';
import {shmHeld} from '../files/shm-owner.js';
import {testPause, testPauseAsync} from '../../ground/test-pause.js';
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
 * Why the store is read afresh, in the operator's words. `sameFile`: the file read last, which a writer opened, left
 * or changed (a writer that holds nothing, as the sqlite3 CLI, does all three at every commit), not another file
 * behind the path (a restore, a copy over it, a link retargeted) or none.
 */
export type Reopen = {why: string; sameFile: boolean};

const GONE: Reopen = {why: 'the store file is gone: read again', sameFile: false};
const AGENT_OPENED: Reopen = {
	why: 'the agent opened the store (-wal and -shm appeared): now following it in place',
	sameFile: true,
};

/**
 * Why a private copy no longer shows the store: the path names another file now, its owner started (-wal and -shm
 * appeared), or the file changed.
 */
function copyStale(given: string, pre: Preflight): Reopen | null {
	let real: string;
	try {
		real = fs.realpathSync(given);
	} catch {
		return GONE;
	}

	if (real !== pre.path) {
		return {
			why: `${given} now links to ${real} (it linked to ${pre.path}): reopened on the new target`,
			sameFile: false,
		};
	}

	let st: fs.Stats;
	try {
		st = fs.statSync(pre.path);
	} catch {
		return GONE;
	}

	if (fs.existsSync(`${pre.path}-wal`) && shmOwned(`${pre.path}-shm`)) {
		return AGENT_OPENED;
	}

	if (st.ino !== pre.main.ino || st.dev !== pre.main.dev) {
		return {why: `${pre.path} was replaced on disk (a new inode): re-read from a fresh private copy`, sameFile: false};
	}

	return st.size !== pre.main.size || st.mtimeMs !== pre.main.mtimeMs
		? {why: 'the store file changed while no agent held it: re-read from a fresh private copy', sameFile: true}
		: null;
}

/** Why the file read now is not the one read last: another inode, or a link that names another file. */
function replaced(last: Preflight, now: Preflight): Reopen | null {
	if (last.link && now.path !== last.path) {
		const why = `${last.link.path} now links to ${now.path} (it linked to ${last.path}): reopened on the new target`;
		return {why, sameFile: false};
	}

	if (now.main.ino !== last.main.ino || now.main.dev !== last.main.dev) {
		const why = `${now.path} was replaced on disk (a new inode: a restore or a copy over it): reopened on the new file`;
		return {why, sameFile: false};
	}

	return null;
}

/**
 * Why the store must be read afresh since the last reading in place (`last`, its preflight): its agent started (a
 * live connection now), or, stopped still, its file changed while no agent held it. Null: it need not.
 */
function movedSinceInPlace(last: Preflight, now: ReadOnlyStore): Reopen | null {
	if (!now.isImmutable) {
		return now.isPrivateCopy ? null : AGENT_OPENED;
	}

	const same = now.preflight.main.size === last.main.size && now.preflight.main.mtimeMs === last.main.mtimeMs;
	return same ? null : {why: 'the store file changed while no agent held it: read again in place', sameFile: true};
}

/** A reading in place thrown away: what changed around each (a writer committed meanwhile, or the file was swapped). */
function changedWhileRead(changes: readonly string[]): Reopen {
	return {
		why: `the store changed while it was read in place (${changes.join('; ')}): read again from the start`,
		sameFile: true,
	};
}

/** The schema cookie and the schema_version row in one statement (pragma_schema_version: PRAGMA schema_version). */
const SCHEMA_KEY_SQL =
	'SELECT (SELECT schema_version FROM pragma_schema_version), (SELECT max(version) FROM schema_version)';

/**
 * What a store's schema was read under: its file (device, inode), its schema cookie (moved by every change of its
 * tables, columns, indexes, views and triggers) and, when `schema` read a version from it, its schema_version row.
 * Null (read it again): a schema_version table `schema` read no version from.
 */
function schemaKeyOf(store: ReadOnlyStore, schema: SchemaInfo | null): string | null {
	if (schema?.tables.has('schema_version') && schema.version === null) {
		return null;
	}

	const {dev, ino} = store.preflight.main;
	// One statement for both (each prepare is ~0.02 ms, on every open: up to 20 a second).
	const [cookie, version = null] =
		schema?.version == null
			? [store.prepare('PRAGMA schema_version').pluck().get()]
			: (store.prepare(SCHEMA_KEY_SQL).raw().get() as unknown[]);
	return `${dev}:${ino}:${String(cookie)}:${String(version)}`;
}

/**
 * What a read is given: the open connection and its schema, and why the rows must be read afresh (null: they need not).
 */
export type OpenRead = {store: ReadOnlyStore; schema: SchemaInfo; reopened: Reopen | null};

/** One turn of the event loop: the keys read meanwhile are answered before the next step. */
const turn = () => new Promise<void>(resolve => setImmediate(resolve));

/** An open for one read: the connection, and for a reading in place what changed around it (asked after its close). */
type Opened = {store: ReadOnlyStore; settle: (() => string | null) | null};

export class LiveConnection {
	schema!: SchemaInfo;
	/** The preflight of the last read of the rows (null before the first). */
	private last: Preflight | null = null;
	/** Open during a read, and between reads only on a private copy. */
	private store: ReadOnlyStore | null = null;
	/** The reading in place open now: what changed around it, asked once it is closed. */
	private settle: (() => string | null) | null = null;
	/** Why the rows must be read afresh, seen by a detail read or a reading in place thrown away. */
	private pending: Reopen | null = null;
	/** The last read of the rows was a reading in place (a stopped or crashed store). */
	private lastInPlace = false;
	/** A stepped read (`readAsync`) runs: its connection and transaction stay open across turns until it ends. */
	private stepping: {closed: boolean} | null = null;
	/** The schema last read and what it was read under (`schemaKeyOf`). */
	private schemaRead: {key: string; schema: SchemaInfo} | null = null;

	/** Opens nothing: the first read (LiveStore's first snapshot) opens the store. */
	constructor(private readonly path: string) {}

	/** The preflight of the last read of the rows: the store's real path, its link, its open mode. */
	get preflight(): Preflight {
		if (!this.last) {
			throw new Error('internal: the live store asked of before its first read');
		}

		return this.last;
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
	 * Runs `fn` on an open connection and closes it after (a private copy stays open). `rows`: the read that keeps the
	 * session index, told when it must read everything afresh. A reading in place that saw the store change is thrown
	 * away and `fn` runs again, told to read everything afresh: `fn` may run more than once. `look`: `readLooked`.
	 */
	read<T>(fn: (open: OpenRead) => T, rows = true, look: StoreLook | null = null): T {
		if (this.stepping) {
			// A detail read while a stepped read runs: on its open connection, inside its snapshot (nothing reopened).
			return fn({store: this.current, schema: this.schema, reopened: null});
		}

		const changes: string[] = [];
		for (;;) {
			const reopened = this.open(rows, changes.length >= IMMUTABLE_ATTEMPTS, changes.length === 0 ? look : null);
			let outcome: {value: T} | {error: unknown};
			try {
				testPause('live-read');
				outcome = {value: fn({store: this.current, schema: this.schema, reopened})};
			} catch (error) {
				outcome = {error};
			}

			// A torn reading can fail as well as succeed: either way it stands only if nothing changed.
			const change = this.release();
			if (change === null) {
				if ('error' in outcome) {
					throw outcome.error;
				}

				return outcome.value;
			}

			changes.push(change);
			this.pending = changedWhileRead(changes);
		}
	}

	/**
	 * As `read` of the rows, the first open's preflight made of `look`: one look at the store taken just now with
	 * nothing open (a refresh's signature, live-signature.ts), so the files are not looked at again before the open.
	 */
	readLooked<T>(look: StoreLook | null, fn: (open: OpenRead) => T): T {
		return this.read(fn, true, look);
	}

	/**
	 * As `read`, for a read of the rows in steps (read-snapshot.ts readSnapshotSteps): a turn of the event loop between
	 * steps, so keys are answered while a large store is read (issue #26); the connection and the read transaction stay
	 * open across them (one snapshot). Null when the connection was closed meanwhile (the view quit): the rest of the
	 * read is dropped. Reads made meanwhile (`read`) run on its connection.
	 */
	async readAsync<T>(fn: (open: OpenRead) => Generator<void, T>): Promise<T | null> {
		const changes: string[] = [];
		for (;;) {
			const reopened = this.open(true, changes.length >= IMMUTABLE_ATTEMPTS);
			const stepping = {closed: false};
			this.stepping = stepping;
			let outcome: {value: T} | {error: unknown};
			try {
				testPause('live-read');
				outcome = {value: await this.stepThrough(fn({store: this.current, schema: this.schema, reopened}), stepping)};
			} catch (error) {
				outcome = {error};
			} finally {
				this.stepping = null;
			}

			if (stepping.closed) {
				return null;
			}

			const change = this.release();
			if (change === null) {
				if ('error' in outcome) {
					throw outcome.error;
				}

				return outcome.value;
			}

			changes.push(change);
			this.pending = changedWhileRead(changes);
		}
	}

	/** Runs the steps with a turn between each; stops (undefined) once the connection is closed. */
	private async stepThrough<T>(steps: Generator<void, T>, stepping: {closed: boolean}): Promise<T> {
		for (let n = 0; ; n++) {
			const step = steps.next();
			if (step.done) {
				return step.value;
			}

			await turn();
			// Tests hold a stepped read here, mid-way, its transaction open (HFX_TEST_PAUSE_AT=read-step).
			if (n === 0) {
				await testPauseAsync('read-step');
			}

			if (stepping.closed) {
				return undefined as T;
			}
		}
	}

	/** Closes an in-place connection (nothing stays held); what changed around a reading in place, or null. */
	release(): string | null {
		if (!this.store || this.store.isPrivateCopy) {
			return null;
		}

		const settle = this.settle;
		this.settle = null;
		this.store.close();
		this.store = null;
		return settle ? settle() : null;
	}

	close(): void {
		if (this.stepping) {
			this.stepping.closed = true;
		}

		this.settle = null;
		this.store?.close();
		this.store = null;
	}

	/**
	 * Opens (preflight again) unless a private copy that still shows the store is open; says why the rows must be read
	 * afresh. `ordinary`: the store changed during each of IMMUTABLE_ATTEMPTS readings in place: opened as any other.
	 * `look`: the first preflight's files (`read`).
	 */
	private open(rows: boolean, ordinary: boolean, look: StoreLook | null = null): Reopen | null {
		const stale = this.store ? copyStale(this.path, this.store.preflight) : null;
		let moved: Reopen | null = null;
		if (!this.store || stale) {
			const next = this.openNext(ordinary, look);
			let schema: SchemaInfo;
			try {
				schema = this.schemaOf(next.store);
			} catch (error) {
				next.store.close();
				throw error;
			}

			this.store?.close();
			next.store.setCacheSizeKib(4096);
			this.store = next.store;
			this.settle = next.settle;
			this.schema = schema;
			moved = this.lastInPlace && this.last ? movedSinceInPlace(this.last, next.store) : null;
		}

		const swapped = this.last ? replaced(this.last, this.store.preflight) : null;
		const reason = stale ?? this.pending ?? swapped ?? moved;
		// A reason of the same file, but another file is behind the path now: that is what the operator is told.
		const why = reason?.sameFile && swapped ? swapped : reason;
		if (!rows) {
			// A detail read: the next read of the rows is told.
			this.pending = why;
			return null;
		}

		this.pending = null;
		this.last = this.store.preflight;
		this.lastInPlace = this.store.isImmutable;
		return why;
	}

	/**
	 * The schema of the store just opened: the last one read when the file, its schema cookie and its schema_version
	 * row are the same, else read again (detectSchema: the table list, the columns of four tables, the objects SQLite
	 * must be able to read, ~10 statements prepared on every open). A refresh opens a connection (up to 20 a second):
	 * detectSchema was ~0.5 s of CPU in a 25 s profile following 200 commits/s. Any change to a table, a column, an
	 * index, a view or a trigger moves the cookie; the schema_version row (data, which decides the rule set) is read.
	 */
	private schemaOf(store: ReadOnlyStore): SchemaInfo {
		const last = this.schemaRead;
		const key = schemaKeyOf(store, last?.schema ?? null);
		if (last && key !== null && key === last.key) {
			return last.schema;
		}

		const schema = detectSchema(store);
		const read = schemaKeyOf(store, schema);
		this.schemaRead = read === null ? null : {key: read, schema};
		return schema;
	}

	/**
	 * The store as it is now: in place if stopped or crashed (checked after), else through ReadOnlyStore.open. `look`:
	 * what the first attempt's preflight is made of (any later attempt looks again).
	 */
	private openNext(ordinary: boolean, look: StoreLook | null): Opened {
		// A change between the preflight and the open (nothing opened yet): looked at again at once.
		for (let attempt = 0; !ordinary && attempt < IMMUTABLE_ATTEMPTS; attempt++) {
			const pre = runPreflight(this.path, attempt === 0 ? look : null);
			const reading = openInPlace(pre);
			if (reading === null) {
				// Not a store read in place (a live one): opened through the preflight just taken.
				return {store: ReadOnlyStore.open(this.path, {preflight: pre}), settle: null};
			}

			if (!('change' in reading)) {
				return reading;
			}
		}

		return {store: ReadOnlyStore.open(this.path), settle: null};
	}
}
