/**
 * Class 9, reads in place (issue #26): a stopped store (WAL mode, neither -wal nor -shm) is read
 * where it lies as an immutable file, with no private copy. `immutable=1` holds only while nothing
 * writes the file, so hfx checks it around the read; these kinds change it while hfx reads (paused
 * right after its immutable open by the test hook): the file replaced by a copy of itself (another
 * inode, the same bytes), a reader opening it (-wal and -shm appear, then go when it closes). hfx
 * throws that read away and reads again, says so in a note, and changes no byte of the folder.
 * Also `leaveSidecars`: a stopped store made crashed (what the private-copy kinds now need).
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {bigHome} from '../fixtures.js';
import type {Fault, RunResult} from '../types.js';
import {step, verdict} from './kit.js';

const PAUSE = {HFX_TEST_PAUSE_AT: 'immutable-read', HFX_TEST_PAUSE_MS: '2000'};

/** Whether some process has `file` open (its /proc/PID/fd links): here, hfx paused inside its immutable read. */
function heldOpen(file: string): boolean {
	for (const pid of fs.readdirSync('/proc').filter(n => /^\d+$/.test(n))) {
		try {
			if (fs.readdirSync(`/proc/${pid}/fd`).some(fd => fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === file)) {
				return true;
			}
		} catch {
			// A process gone or not ours to look at.
		}
	}

	return false;
}

async function until(what: string, holds: () => boolean, ms = 20_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!holds()) {
		if (Date.now() > deadline) {
			throw new Error(`waited ${ms} ms for ${what}`);
		}

		await new Promise(resolve => setTimeout(resolve, 20));
	}
}

/**
 * The sqlite3 CLI holding `db` open (its first read creates -wal and -shm); `stop` ends it (a clean close) or SIGKILLs
 * it (a crash).
 */
async function sqliteReader(db: string): Promise<{stop: (signal?: 'SIGKILL') => Promise<void>}> {
	const child = spawn('sqlite3', [db], {stdio: ['pipe', 'ignore', 'ignore']});
	child.stdin.write('SELECT count(*) FROM sqlite_master;\n');
	const exited = new Promise(resolve => child.once('exit', resolve));
	await until('sqlite3 to open the store', () => fs.existsSync(`${db}-shm`));
	await new Promise(resolve => setTimeout(resolve, 100));
	return {
		async stop(signal) {
			if (signal) {
				child.kill(signal);
			} else {
				child.stdin.end();
			}

			await exited;
		},
	};
}

/** A stopped store made crashed: -wal and -shm left by a reader SIGKILLed while it had the store open (no holder). */
export async function leaveSidecars(db: string): Promise<void> {
	await (await sqliteReader(db)).stop('SIGKILL');
}

/** Step 1's JSON says in place, and a note says the read was thrown away because `why`. */
function readAgain(why: RegExp): (r: RunResult) => string | null {
	return r => {
		let json: {database?: {openMode?: string; notes?: string[]}};
		try {
			json = JSON.parse(r.stdout) as typeof json;
		} catch {
			return `not JSON: ${r.stdout.slice(0, 200)}`;
		}

		const notes = (json.database?.notes ?? []).join(' | ');
		if (json.database?.openMode !== 'in-place') {
			return `openMode ${json.database?.openMode}, expected in-place`;
		}

		return /changed while it was read in place/.test(notes) && why.test(notes)
			? null
			: `no note that the read was thrown away (${why.source}): ${notes}`;
	};
}

/**
 * `scan --json` paused inside its immutable read (concurrent), then `change` done to the store while it is, then
 * `sessions` on what is left.
 */
function midRead(id: string, notes: string, change: (db: string) => Promise<void>, why: RegExp): Fault {
	return {
		id,
		cls: 9,
		outcome: 'ok',
		notes,
		async setup(t) {
			const h = await bigHome(t.dir('home'));
			if (fs.existsSync(`${h.db}-wal`) || fs.existsSync(`${h.db}-shm`)) {
				throw new Error("the home's store is not stopped");
			}

			const db = fs.realpathSync(h.db);
			return {
				evidence: [h.root],
				steps: [
					verdict(['scan', '--db', db, '--json'], {concurrent: true, env: PAUSE, check: readAgain(why)}),
					step('ok', ['sessions', '--db', db], {
						async before() {
							// Held across 300 ms: hfx inside its paused read, not its preflight's glance at the header.
							for (;;) {
								await until('hfx to open the store', () => heldOpen(db));
								await new Promise(resolve => setTimeout(resolve, 300));
								if (heldOpen(db)) {
									break;
								}
							}

							await change(db);
						},
					}),
				],
			};
		},
	};
}

export const IN_PLACE_READS: Fault[] = [
	midRead(
		'in-place-store-replaced-mid-read',
		'state.db renamed over by a copy of itself (the same bytes, another ' +
			'inode) while scan reads it in place: that read is thrown away and the ' +
			'store read again; 0 bytes changed',
		async db => {
			const copy = path.join(path.dirname(db), '.state.db.replacing');
			fs.copyFileSync(db, copy);
			fs.renameSync(copy, db);
		},
		/replaced \(another inode\)/,
	),
	midRead(
		'in-place-wal-appears-mid-read',
		'a reader (the sqlite3 CLI) opens the stopped store while scan reads it ' +
			'in place (-wal and -shm appear), holds it 6 s and closes (they go): the ' +
			'read is thrown away and done again beside the reader; 0 bytes changed',
		async db => {
			const reader = await sqliteReader(db);
			await new Promise(resolve => setTimeout(resolve, 6000));
			await reader.stop();
		},
		/-wal and -shm appeared/,
	),
];
