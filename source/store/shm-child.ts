/**
 * Forked by ShmReader (shm.ts): reads the first 136 bytes of `${dbPath}-shm` and the first 100
 * bytes of the database for a parent that holds a SQLite connection to them and therefore must not
 * open them itself (sqlite-wal.md rule 4, H3). This process never opens SQLite, so its plain
 * open/read/close drops nobody's locks. Read-only; creates nothing.
 *
 * The -shm header is a live mmap that writers update without any lock a reader could take, so one
 * read can catch it mid-update. Like SQLite's walIndexTryHdr, retry with a short backoff until both
 * copies agree, isInit is 1 and the checksum holds.
 */
import fs from 'node:fs';
import {type ShmChildFile, type ShmChildReply, type ShmChildRequest, SHM_HEADER_BYTES, parseShmHeader} from './shm.js';

const BACKOFF_MS = [0, 1, 2, 4, 8, 16, 32, 64];

function code(error: unknown): string {
	const c = (error as {code?: unknown} | null)?.code;
	return typeof c === 'string' ? c : (error instanceof Error ? error.message : String(error));
}

function readPrefix(fd: number, length: number): Buffer {
	const buf = Buffer.alloc(length);
	let got = 0;
	while (got < length) {
		const n = fs.readSync(fd, buf, got, length - got, got);
		if (n === 0) {
			break;
		}

		got += n;
	}

	return buf.subarray(0, got);
}

async function sleep(ms: number): Promise<void> {
	await new Promise(resolve => {
		setTimeout(resolve, ms);
	});
}

async function readShm(shmPath: string): Promise<{file: ShmChildFile; attempts: number}> {
	let fd: number;
	try {
		fd = fs.openSync(shmPath, 'r');
	} catch (error) {
		const c = code(error);
		return {file: {bytes: null, missing: c === 'ENOENT', error: c === 'ENOENT' ? null : c}, attempts: 0};
	}

	try {
		let last: Buffer = Buffer.alloc(0);
		let attempts = 0;
		for (const delay of BACKOFF_MS) {
			if (delay > 0) {
				await sleep(delay);
			}

			attempts++;
			last = readPrefix(fd, SHM_HEADER_BYTES);
			// Short: a connection is re-initializing it (SQLite truncates -shm to 3 bytes during recovery).
			if (last.length === SHM_HEADER_BYTES && parseShmHeader(last).consistent) {
				return {file: {bytes: last.toString('base64'), missing: false, error: null}, attempts};
			}
		}

		return {file: {bytes: last.toString('base64'), missing: false, error: last.length < SHM_HEADER_BYTES ? null : 'shm-unstable'}, attempts};
	} catch (error) {
		return {file: {bytes: null, missing: false, error: code(error)}, attempts: 0};
	} finally {
		fs.closeSync(fd);
	}
}

function readDb(dbPath: string): ShmChildFile {
	try {
		const fd = fs.openSync(dbPath, 'r');
		try {
			return {bytes: readPrefix(fd, 100).toString('base64'), missing: false, error: null};
		} finally {
			fs.closeSync(fd);
		}
	} catch (error) {
		const c = code(error);
		return {bytes: null, missing: c === 'ENOENT', error: c};
	}
}

process.on('message', (message: ShmChildRequest) => {
	void (async () => {
		const {file: shm, attempts} = await readShm(`${message.dbPath}-shm`);
		const reply: ShmChildReply = {id: message.id, shm, db: readDb(message.dbPath), attempts};
		process.send?.(reply);
	})();
});

// The parent is gone: nothing left to serve.
process.on('disconnect', () => {
	process.exit(0);
});
