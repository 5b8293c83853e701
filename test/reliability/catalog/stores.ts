/**
 * Class 9, what already holds: a store that cannot be read is refused in one line (exit 2) naming
 * the file, the cause and the next step, and nothing is written beside it: corrupt, empty, text,
 * non-Hermes, FIFO, device, folder, missing, unreadable (run as nobody), a 0-byte main file beside
 * a -wal (SQLite would delete the WAL).
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {crashedStore, home} from '../fixtures.js';
import {ROOT} from '../run-hfx.js';
import type {Fault, Step, TempSpace} from '../types.js';
import {plantedStore, refused} from './kit.js';

/** As nobody (uid 65534): permission bits apply (root ignores them). */
export const AS_NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'];

/** Lets nobody reach the run's folders (mkdtemp folders are 0700) and write its TMPDIR. */
export function forNobody(t: TempSpace, dirs: string[]): void {
	for (const d of [...dirs, t.home, t.tmpdir]) {
		openPathTo(d);
	}

	fs.chmodSync(t.tmpdir, 0o1777);
}

/** Lets nobody reach `dir`. */
export function openPathTo(dir: string): void {
	for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
		if (d.startsWith('/tmp/hfx-rel-')) {
			fs.chmodSync(d, 0o755);
		}
	}
}

const refuseAll = (db: string, match: RegExp, more: Partial<Step> = {}): Step[] =>
	[['scan'], ['sessions', '--json'], ['routing']].map(a => refused([...a, '--db', db], match, more));

function bad(id: string, make: (db: string) => void, match: RegExp, notes: string, needs?: Fault['needs']): Fault {
	return {
		id,
		cls: 9,
		outcome: 'refused',
		notes,
		needs,
		setup(t) {
			const s = plantedStore(t.dir('store'), make);
			return {evidence: [s.dir], steps: refuseAll(s.db, match)};
		},
	};
}

export const STORES: Fault[] = [
	bad(
		'store-corrupt-header',
		db => {
			fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), db);
			const fd = fs.openSync(db, 'r+');
			fs.writeSync(fd, Buffer.from('SQLite formaX 3\u0000', 'latin1'), 0, 16, 0);
			fs.closeSync(fd);
		},
		/not a SQLite database/,
		'the 16-byte magic damaged',
	),
	bad('store-empty', db => fs.writeFileSync(db, ''), /0 bytes|empty/, 'a 0-byte state.db, no -wal'),
	bad(
		'store-text-file',
		db => fs.writeFileSync(db, 'this is a text file, not a database\n'.repeat(40)),
		/not a SQLite database/,
		'a text file named state.db',
	),
	bad(
		'store-non-hermes',
		db => {
			const d = new Database(db);
			d.exec("CREATE TABLE things(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO things(name) VALUES ('x');");
			d.close();
		},
		/Hermes|sessions/,
		'a valid SQLite file with no Hermes tables',
	),
	bad(
		'store-fifo',
		db => spawnSync('mkfifo', [db]),
		/not a regular file|FIFO|pipe/i,
		'a FIFO named state.db (must not block)',
	),
	bad(
		'store-device',
		db => spawnSync('mknod', [db, 'c', '1', '3']),
		/not a regular file|device/i,
		"a character device (/dev/null's numbers) named state.db",
		['root'],
	),
	bad('store-directory', db => fs.mkdirSync(db), /is a directory/, 'a folder named state.db'),
	bad('store-missing', () => undefined, /no such|not found|does not exist|missing/i, 'no state.db at the path'),
	{
		id: 'store-unreadable',
		cls: 9,
		outcome: 'refused',
		needs: ['root'],
		notes: 'state.db mode 000, hfx run as nobody',
		async setup(t) {
			const h = await home(t.dir('home'));
			fs.chmodSync(h.db, 0o000);
			forNobody(t, [h.root]);
			return {
				evidence: [h.root],
				steps: refuseAll(h.db, /permission|EACCES|cannot be read|not readable/i, {wrap: AS_NOBODY}),
			};
		},
	},
	{
		id: 'store-zero-main-beside-wal',
		cls: 9,
		outcome: 'refused',
		notes: 'a 0-byte state.db beside a crashed -wal: SQLite would delete that WAL',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			fs.truncateSync(s.db, 0);
			return {evidence: [s.dir], steps: refuseAll(s.db, /0 bytes.*Next: .*copy/)};
		},
	},
];
