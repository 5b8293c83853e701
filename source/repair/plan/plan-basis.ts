/**
 * What a plan is bound to: the file's identity, the WAL position (salts and mxFrame from the -shm,
 * the header's change counter) and the hash of the rows it touches. Read through the -shm child
 * process, so it is safe in a process that holds a SQLite connection to the store (a plain
 * open()+close() would drop its POSIX locks: docs/sqlite-wal.md, posix-locks).
 */
import fs from 'node:fs';
import type {ShmReader} from '../../store/files/shm.js';

export type PlanBasis = {
	dev: number;
	ino: number;
	/** Last committed WAL frame (0: no WAL content). */
	mxFrame: number;
	/** WAL salts; null when the WAL holds nothing (they are not content then). */
	salts: [number, number] | null;
	/** Database header change counter (bytes 24..27). */
	changeCounter: number | null;
	rowsHash: string;
};

export async function readPlanBasis(dbPath: string, rowsHash: string, reader: ShmReader): Promise<PlanBasis> {
	const st = fs.statSync(dbPath);
	const read = await reader.read(dbPath);
	if (read.shm && !read.shm.consistent) {
		throw new Error(`the -shm header stayed inconsistent (${read.error ?? 'a writer is mid-update'})`);
	}

	const mxFrame = read.shm?.mxFrame ?? 0;
	return {
		dev: st.dev,
		ino: st.ino,
		mxFrame,
		salts: read.shm && mxFrame > 0 ? [read.shm.salt1, read.shm.salt2] : null,
		changeCounter: read.dbHeader?.fileChangeCounter ?? null,
		rowsHash,
	};
}

/** Null when equal; otherwise what moved, in words. */
export function basisDifference(planned: PlanBasis, now: PlanBasis): string | null {
	const diffs: string[] = [];
	if (planned.dev !== now.dev || planned.ino !== now.ino) {
		diffs.push('state.db was replaced (another inode)');
	}

	if (planned.rowsHash !== now.rowsHash) {
		diffs.push('the rows the plan touches changed');
	}

	if (planned.mxFrame !== now.mxFrame || JSON.stringify(planned.salts) !== JSON.stringify(now.salts)) {
		diffs.push(`the WAL moved (frame ${planned.mxFrame} → ${now.mxFrame})`);
	}

	if (planned.changeCounter !== now.changeCounter) {
		diffs.push(`the database header changed (change counter ${planned.changeCounter} → ${now.changeCounter})`);
	}

	return diffs.length > 0 ? diffs.join('; ') : null;
}
