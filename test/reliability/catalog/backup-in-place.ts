/**
 * Class 9, a backup reading a stopped store in place (issue #26): `hfx backup` copies a stopped store from where it
 * lies, no private copy first (backup/create/sqlite-copy.ts, copyInPlace), which holds only while nothing writes it.
 * Here the agent starts while the backup is inside that read (paused there by the test hook `backup-in-place`): the
 * sqlite3 CLI opens the store (-wal and -shm appear) and holds it. The copy taken in place is thrown away and taken
 * again beside the running reader: the archive is sound with every message, nothing lands in the TMPDIR, 0 bytes of
 * the store changed.
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import {bigHome} from '../fixtures.js';
import type {Fault, RunResult} from '../types.js';
import {ok, verdict} from './kit.js';

const PAUSE = {HFX_TEST_PAUSE_AT: 'backup-in-place', HFX_TEST_PAUSE_MS: '2000'};

/** The messages of the big home's store (fixtures.ts, bigHome). */
const MESSAGES = 50_000;

async function until(what: string, holds: () => boolean, ms = 20_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!holds()) {
		if (Date.now() > deadline) {
			throw new Error(`waited ${ms} ms for ${what}`);
		}

		await new Promise(resolve => setTimeout(resolve, 20));
	}
}

/** Whether some process has `file` open (its /proc/PID/fd links): here, hfx paused inside its read in place. */
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

/** The backup's JSON: the home's state.db read in place, integrity ok, every message. */
function soundArchive(r: RunResult): string | null {
	let json: {databases?: Array<{path?: string; openMode?: string; integrity?: string; counts?: {messages?: number}}>};
	try {
		json = JSON.parse(r.stdout) as typeof json;
	} catch {
		return `not JSON: ${r.stdout.slice(0, 200)}`;
	}

	const db = json.databases?.find(d => d.path === 'state.db');
	if (db?.integrity !== 'ok' || db.counts?.messages !== MESSAGES) {
		return `expected its state.db with integrity ok and ${MESSAGES} messages: ${JSON.stringify(json.databases)}`;
	}

	return db.openMode === 'in-place' ? null : `openMode ${db.openMode}, expected in-place (no private copy)`;
}

const agentStartsMidCopy: Fault = {
	id: 'backup-in-place-agent-starts-mid-copy',
	cls: 9,
	outcome: 'ok',
	notes:
		'a reader (the sqlite3 CLI, the agent starting) opens the stopped store while `hfx backup` is inside its copy ' +
		'in place (paused 2 s there) and holds it 4 s: the copy is thrown away and taken again beside the reader; the ' +
		'archive sound with every message, nothing in TMPDIR, 0 bytes changed',
	async setup(t) {
		const h = await bigHome(t.dir('home'));
		if (fs.existsSync(`${h.db}-wal`) || fs.existsSync(`${h.db}-shm`)) {
			throw new Error("the home's store is not stopped");
		}

		const db = fs.realpathSync(h.db);
		const out = t.dir('out');
		return {
			evidence: [h.root],
			steps: [
				verdict(['backup', '--home', h.root, '-o', `${out}/`, '--json'], {
					concurrent: true,
					env: PAUSE,
					check: soundArchive,
				}),
				ok(['sessions', '--db', db], {
					async before() {
						// Held across 300 ms: hfx inside its paused read, not its preflight's glance at the header.
						for (;;) {
							await until('hfx backup to open the store in place', () => heldOpen(db));
							await new Promise(resolve => setTimeout(resolve, 300));
							if (heldOpen(db)) {
								break;
							}
						}

						const child = spawn('sqlite3', [db], {stdio: ['pipe', 'ignore', 'ignore']});
						child.stdin.write('SELECT count(*) FROM sqlite_master;\n');
						const exited = new Promise(resolve => child.once('exit', resolve));
						await until('sqlite3 to open the store', () => fs.existsSync(`${db}-shm`));
						await new Promise(resolve => setTimeout(resolve, 4000));
						child.stdin.end();
						await exited;
					},
				}),
			],
			after: () => {
				const seen = fs.readdirSync(t.tmpdir);
				return seen.length > 0 ? `hfx made ${seen.join(', ')} in its TMPDIR` : null;
			},
		};
	},
};

export const BACKUP_IN_PLACE: Fault[] = [agentStartsMidCopy];
