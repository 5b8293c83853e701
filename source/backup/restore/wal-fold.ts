/**
 * A tar taken while the agent ran holds state.db-wal beside state.db: the database file without it
 * is older than what the agent had committed. A restore never writes the -wal as a file (replayed
 * over another database it would corrupt it, docs/sqlite-wal.md), so its committed frames are folded
 * into the restored copy instead: the database and its -wal, extracted into OUR private temp folder,
 * are opened there and checkpointed (FULL, then TRUNCATE), and that copy is what gets staged. Never a live file,
 * never the target: only the private pair this restore extracted.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {FailClosed, errorCode, errorMessage} from '../../ground/errors.js';

export type Folded = {
	/** Frames the -wal held up to its last commit, all checkpointed into the copy. */
	frames: number;
	walBytes: number;
};

type CheckpointRow = {busy: number; log: number; checkpointed: number};

/**
 * Folds `<dir>/<name>-wal` into `<dir>/<name>` (both private files of this restore). Throws a
 * refusal when SQLite cannot fold every committed frame: the restore would then lose them.
 */
export function foldWal(dir: string, name: string, archive: string): Folded {
	const file = path.join(dir, name);
	const walBytes = fs.statSync(`${file}-wal`).size;
	let db: Database.Database | undefined;
	let row: CheckpointRow | undefined;
	try {
		db = new Database(file, {fileMustExist: true, timeout: 0});
		// Reading the header and replaying the -wal happens on the first statement.
		db.prepare('SELECT count(*) FROM sqlite_master').pluck().get();
		// FULL reports the frames it folded (TRUNCATE reports the emptied log); then TRUNCATE empties the -wal.
		row = (db.pragma('wal_checkpoint(FULL)', {simple: false}) as CheckpointRow[])[0];
		db.pragma('wal_checkpoint(TRUNCATE)');
	} catch (error) {
		throw new FailClosed({
			file: archive,
			kind: 'wal-not-folded',
			reason:
				`the ${name}-wal in the archive cannot be folded into its database ` +
				`(${errorCode(error) ?? errorMessage(error)}); a restore without it ` +
				`would lose its commits; nothing was written`,
			next: `check it with hfx verify ${archive}; restore from another backup (hfx backups)`,
			exitCode: 2,
			cause: error,
		});
	} finally {
		db?.close();
	}

	// Not in WAL mode (the header says rollback): SQLite ignores the -wal, there is nothing to fold.
	const frames = row && row.log >= 0 ? row.log : 0;
	if (row && (row.busy !== 0 || row.checkpointed !== row.log)) {
		throw new FailClosed({
			file: archive,
			kind: 'wal-not-folded',
			reason:
				`only ${row.checkpointed} of the ${row.log} committed frames ` +
				`of ${name}-wal could be folded into its database; a restore would lose ` +
				`the rest; nothing was written`,
			next: 'extract the archive by hand into a scratch folder and open it with sqlite3 there',
			exitCode: 2,
		});
	}

	for (const s of ['-wal', '-shm']) {
		fs.rmSync(`${file}${s}`, {force: true});
	}

	return {frames, walBytes};
}
