/**
 * `hfx diff A B` given hostile inputs (issue #24 point 4): each is one line on stderr, exit 2, no
 * hang, nothing written beside the home or the archive, nothing left in TMPDIR. A damaged archive
 * and a zip whose store inflates far past its declared size (class 4: the verified readers restore
 * uses refuse them before any private copy is read); a tar with a `..` member or a state.db that is a
 * link (class 4: the member policy); a home and a symbolic link to its state.db, one store (class 2);
 * a FIFO as a side (class 3: never opened); a file that is no SQLite database and no archive, and a
 * retired-WAL capture that kept only the main file's header (class 9). And a Ctrl-C or SIGTERM
 * while diff's private copy of an archived store is in TMPDIR leaves nothing there (class 6).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {spawnSync} from 'node:child_process';
import {craftTar} from '../craft-tar.js';
import {archive, home} from '../fixtures.js';
import type {Fault, FaultClass, RunResult, Scene, TempSpace} from '../types.js';
import {leftIn} from '../temp-space.js';
import {namesFile, refused, step, write} from './kit.js';

/** The --json refusal's kind on stdout. */
function jsonKind(kind: RegExp): (r: RunResult) => string | null {
	return r =>
		kind.test(r.stdout) ? null : `--json: expected an error kind matching ${kind}, got ${r.stdout.slice(0, 200)}`;
}

/** One `hfx diff` of a hostile side against a real home: refused, naming the hostile file. */
function against(
	id: string,
	cls: FaultClass,
	notes: string,
	make: (t: TempSpace, dir: string) => Promise<string> | string,
	kind: RegExp,
): Fault {
	return {
		id,
		cls,
		outcome: 'refused',
		notes,
		async setup(t): Promise<Scene> {
			const h = await home(t.dir('home'));
			const dir = t.dir('side');
			const hostile = await make(t, dir);
			return {
				evidence: [h.root, dir],
				steps: [
					refused(['diff', hostile, h.root], namesFile(hostile)),
					refused(['diff', h.root, hostile, '--json'], namesFile(hostile), {check: jsonKind(kind)}),
				],
			};
		},
	};
}

/**
 * A zip whose one member, state.db, says 4096 bytes and inflates to 64 MiB of zeros (a bomb that lies about its size).
 */
function lyingBomb(file: string): string {
	const name = Buffer.from('state.db');
	const declared = Buffer.alloc(4096);
	const data = zlib.deflateRawSync(Buffer.alloc(64 * 1024 * 1024), {level: 9});
	const crc = zlib.crc32(declared) >>> 0;
	const local = Buffer.alloc(30);
	local.writeUInt32LE(0x04_03_4b_50, 0);
	local.writeUInt16LE(20, 4);
	local.writeUInt16LE(8, 8);
	local.writeUInt32LE(crc, 14);
	local.writeUInt32LE(data.length, 18);
	local.writeUInt32LE(declared.length, 22);
	local.writeUInt16LE(name.length, 26);
	const central = Buffer.alloc(46);
	central.writeUInt32LE(0x02_01_4b_50, 0);
	central.writeUInt16LE((3 << 8) | 63, 4);
	central.writeUInt16LE(20, 6);
	central.writeUInt16LE(8, 10);
	central.writeUInt32LE(crc, 16);
	central.writeUInt32LE(data.length, 20);
	central.writeUInt32LE(declared.length, 24);
	central.writeUInt16LE(name.length, 28);
	central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
	const eocd = Buffer.alloc(22);
	eocd.writeUInt32LE(0x06_05_4b_50, 0);
	eocd.writeUInt16LE(1, 8);
	eocd.writeUInt16LE(1, 10);
	eocd.writeUInt32LE(central.length + name.length, 12);
	eocd.writeUInt32LE(local.length + name.length + data.length, 16);
	fs.writeFileSync(file, Buffer.concat([local, name, data, central, name, eocd]));
	return file;
}

/** A real sealed archive of a home with 4 KiB overwritten a third of the way in. */
async function damagedArchive(dir: string): Promise<string> {
	const a = await archive(dir);
	const bytes = fs.readFileSync(a);
	bytes.fill(0x55, Math.floor(bytes.length / 3), Math.floor(bytes.length / 3) + 4096);
	fs.writeFileSync(a, bytes);
	return a;
}

/** Two paths to one store: the home, and a symbolic link to its state.db elsewhere. */
function sameStore(): Fault {
	return {
		id: 'diff-same-store-through-link',
		cls: 2,
		outcome: 'refused',
		notes: 'hfx diff HOME LINK, LINK a symbolic link to HOME/state.db: one store, refused (same-store)',
		async setup(t): Promise<Scene> {
			const h = await home(t.dir('home'));
			const link = path.join(t.dir('link'), 'state.db');
			fs.symlinkSync(h.db, link);
			return {
				evidence: [h.root, path.dirname(link)],
				steps: [
					refused(['diff', h.root, link], namesFile(link)),
					refused(['diff', h.db, h.root, '--json'], namesFile(h.root), {check: jsonKind(/"kind": "same-store"/)}),
				],
			};
		},
	};
}

/**
 * A signal while the private copy of an archive's store exists (paused right after its folder is made): nothing left in
 * TMPDIR.
 */
function signalledWithCopy(signal: 'SIGINT' | 'SIGTERM'): Fault {
	return {
		id: `diff-${signal.toLowerCase()}-with-private-copy`,
		cls: 6,
		outcome: 'partial-cleaned',
		notes: `${signal} while diff's private copy of an archive's state.db is in TMPDIR: removed on the way out`,
		async setup(t): Promise<Scene> {
			const h = await home(t.dir('home'));
			const a = await archive(t.dir('archives'));
			const copying = () => leftIn(t.tmpdir).some(n => n.startsWith('hfx-diff-'));
			return {
				evidence: [h.root, path.dirname(a)],
				steps: [
					step('killed', ['diff', a, h.root], {
						env: {HFX_TEST_PAUSE_AT: 'temp-diff', HFX_TEST_PAUSE_MS: '3000'},
						kill: {signal, when: copying, afterMs: 20_000},
					}),
				],
			};
		},
	};
}

export const DIFF: Fault[] = [
	against(
		'diff-damaged-archive',
		4,
		'a sealed archive with 4 KiB overwritten: archive-damaged, no private copy read',
		(_t, dir) => damagedArchive(dir),
		/"kind": "(archive-damaged|unreadable)"/,
	),
	against(
		'diff-zip-bomb-lying-size',
		4,
		'a zip whose state.db says 4096 bytes and inflates to 64 MiB: the reader stops at the declared size',
		(_t, dir) => lyingBomb(path.join(dir, 'bomb.zip')),
		/"kind": "(archive-damaged|unreadable)"/,
	),
	against(
		'diff-tar-dotdot-member',
		4,
		'a tar.gz with ../escaped beside a real state.db',
		async (t, dir) =>
			craftTar(path.join(dir, 'home.tar.gz'), [
				{name: 'state.db', data: fs.readFileSync((await home(t.dir('src'))).db)},
				{name: '../escaped', data: Buffer.from('x')},
			]),
		/"kind": "(archive-damaged|unsafe-member)"/,
	),
	against(
		'diff-tar-db-symlink',
		4,
		'a tar.gz whose only state.db is a symlink to /etc/shadow',
		(_t, dir) => craftTar(path.join(dir, 'home.tar.gz'), [{name: 'state.db', type: 'symlink', link: '/etc/shadow'}]),
		/"kind": "(archive-damaged|unsafe-member|no-hermes-root)"/,
	),
	sameStore(),
	against(
		'diff-fifo-side',
		3,
		'a FIFO named like an archive as one side: never opened, no hang',
		(_t, dir) => {
			const fifo = path.join(dir, 'backup.zip');
			spawnSync('mkfifo', [fifo]);
			return fifo;
		},
		/"kind": "not-a-file"/,
	),
	against(
		'diff-not-sqlite',
		9,
		'a text file: neither an SQLite database nor an archive (unsupported)',
		(_t, dir) => write(path.join(dir, 'notes.txt'), 'not a store\n'.repeat(100)),
		/"kind": "unsupported"/,
	),
	against(
		'diff-capture-header-only',
		9,
		'a retired-WAL capture that kept only state.db.header and its -wal (no-main-image)',
		(_t, dir) => {
			const capture = path.join(dir, 'state.db.retired-wal-20261201-000000-4242');
			write(path.join(capture, 'state.db.header'), Buffer.alloc(100));
			write(path.join(capture, 'state.db-wal'), Buffer.alloc(32));
			return capture;
		},
		/"kind": "no-main-image"/,
	),
	signalledWithCopy('SIGINT'),
	signalledWithCopy('SIGTERM'),
];
