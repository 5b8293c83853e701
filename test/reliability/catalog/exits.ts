/**
 * Class 7: truthful exits and one clear line. `hfx files` must call a damaged WAL header, a main
 * file cut in half and a hot -journal findings (exit 1); ELOOP, ENAMETOOLONG, ENOTDIR and an
 * unreadable or folder -wal are one line, never a stack trace; each cause is named as it is (a
 * 50-byte file is cut short, not a bad magic; a bogus --undo is not a missing confirmation); a
 * `--home` that is a file, `--profile ../../etc` and `--limit -5` are refused; a sessions table
 * without the routing columns is refused or warned about, never 19 false orphans.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {archive, crashedStore, home} from '../fixtures.js';
import {flipBytes} from '../../helpers/flip-bytes.js';
import {ROOT} from '../run-hfx.js';
import type {Fault, Scene, Step, TempSpace} from '../types.js';
import {finding, refused, step} from './kit.js';
import {AS_NOBODY, forNobody} from './stores.js';

function kind(
	id: string,
	outcome: Fault['outcome'],
	notes: string,
	setup: (t: TempSpace) => Promise<Scene> | Scene,
	needs?: Fault['needs'],
): Fault {
	return {id, cls: 7, outcome, notes, setup, needs};
}

async function crashed(t: TempSpace, change: (db: string) => void, steps: (db: string) => Step[]): Promise<Scene> {
	const s = await crashedStore(t.dir('store'));
	change(s.db);
	return {evidence: [s.dir], steps: steps(s.db)};
}

/** Runs the command under `ulimit -f BLOCKS`. */
export const ULIMIT = (blocks: number): string[] => ['bash', '-c', `ulimit -f ${blocks}; exec "$@"`, 'hfx'];

const ONE_LINE = /^hfx: [^\n]*Next: /;

export const EXITS: Fault[] = [
	kind(
		'files-damaged-wal-header',
		'finding',
		'a crashed -wal whose header salt was flipped: its committed transactions are invisible',
		t =>
			crashed(
				t,
				db => flipBytes(`${db}-wal`, [17]),
				db => [finding(['files', '--db', db])],
			),
	),
	kind(
		'files-main-cut-in-half',
		'refused',
		"a stopped store's state.db (no -wal) cut to half its pages: its header " +
			'still counts them all; SQLite reads it as damaged, so `files` reports ' +
			'it and exits 2 (never 0)',
		async t => {
			const dir = t.dir('store');
			const db = path.join(dir, 'state.db');
			const bytes = fs.readFileSync((await home(t.dir('home'))).db);
			fs.writeFileSync(db, bytes.subarray(0, Math.floor(bytes.length / 8192) * 4096));
			return {evidence: [dir], steps: [step('refused', ['files', '--db', db])]};
		},
	),
	kind(
		'files-hot-journal',
		'finding',
		'a non-empty state.db-journal beside the store (a rollback journal SQLite would replay)',
		t =>
			crashed(
				t,
				db => {
					fs.writeFileSync(
						`${db}-journal`,
						Buffer.concat([Buffer.from([0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]), Buffer.alloc(4096, 1)]),
					);
				},
				db => [finding(['files', '--db', db])],
			),
	),
	kind('store-50-bytes', 'refused', 'the first 50 bytes of a real store: cut short, not a bad magic', t => {
		const dir = t.dir('store');
		const db = path.join(dir, 'state.db');
		fs.writeFileSync(
			db,
			fs.readFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db')).subarray(0, 50),
		);
		return {
			evidence: [dir],
			steps: [
				refused(['scan', '--db', db], /50 bytes|too short|cut (off|short)|truncated|shorter than/i, {
					notMatch: /first bytes are/,
				}),
			],
		};
	}),
	kind(
		'store-malformed-page',
		'refused',
		'one b-tree page at 70% of the real v21 store overwritten with 0xFF ' +
			'(found by the store fuzzer, seed 17): "malformed" in one line, no stack trace',
		t => {
			const dir = t.dir('store');
			const db = path.join(dir, 'state.db');
			const bytes = fs.readFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'));
			const page = Math.floor((bytes.length / 4096) * 0.7);
			bytes.fill(0xff, page * 4096, (page + 1) * 4096);
			fs.writeFileSync(db, bytes);
			return {
				evidence: [dir],
				steps: [step('any', ['scan', '--db', db]), step('any', ['sessions', '--db', db, '--json'])],
			};
		},
	),
	kind('path-eloop', 'refused', 'state.db is a symlink loop (ELOOP)', t => {
		const dir = t.dir('store');
		fs.symlinkSync('state.db', path.join(dir, 'state.db'));
		return {
			evidence: [dir],
			steps: [
				refused(['scan', '--db', path.join(dir, 'state.db')], ONE_LINE),
				refused(['files', '--db', path.join(dir, 'state.db')], ONE_LINE),
			],
		};
	}),
	kind('path-enametoolong', 'refused', 'a --db path with a 300-character name (ENAMETOOLONG)', t => {
		const dir = t.dir('store');
		const db = path.join(dir, `${'x'.repeat(300)}`, 'state.db');
		return {
			evidence: [dir],
			steps: [
				refused(['scan', '--db', db], ONE_LINE),
				refused(['files', '--db', db], ONE_LINE),
				refused(['backup', '--home', path.dirname(db)], ONE_LINE),
			],
		};
	}),
	kind('path-enotdir', 'refused', '--db FILE/state.db where FILE is a regular file (ENOTDIR)', t => {
		const dir = t.dir('store');
		fs.writeFileSync(path.join(dir, 'file'), 'x');
		const db = path.join(dir, 'file', 'state.db');
		return {
			evidence: [dir],
			steps: [
				refused(['scan', '--db', db], ONE_LINE),
				refused(['files', '--db', db], ONE_LINE),
				refused(['doctor', '--home', path.dirname(db)], ONE_LINE),
			],
		};
	}),
	kind(
		'wal-unreadable',
		'refused',
		'the -wal mode 000, hfx run as nobody',
		async t => {
			const sc = await crashed(
				t,
				db => fs.chmodSync(`${db}-wal`, 0o000),
				db => [
					refused(['scan', '--db', db], /wal.*(permission|EACCES|cannot be read|not readable)/i, {wrap: AS_NOBODY}),
					step('any', ['files', '--db', db], {wrap: AS_NOBODY}),
				],
			);
			forNobody(t, sc.evidence);

			return sc;
		},
		['root'],
	),
	kind('wal-directory', 'refused', 'state.db-wal is a folder', t =>
		crashed(
			t,
			db => {
				fs.rmSync(`${db}-wal`);
				fs.mkdirSync(`${db}-wal`);
			},
			db => [refused(['scan', '--db', db], /-wal.*(folder|directory)/i), step('any', ['files', '--db', db])],
		),
	),
	kind(
		'undo-bogus-entry',
		'refused',
		'`repair --undo nonsense`: no such audit entry, not "a missing confirmation"',
		async t => {
			const h = await home(t.dir('home'));
			// The audit trail records a refused repair by design (repair/write/write-transaction.ts): only it may change.
			return {
				evidence: [h.root],
				mayWrite: ['hfx-audit.jsonl', 'hfx-audit.head'].map(n => path.join(h.root, n)),
				steps: [
					refused(['repair', '--undo', 'no-such-entry', '--db', h.db, '--yes'], /entry|audit/i, {notMatch: /confirm/i}),
				],
			};
		},
	),
	kind('doctor-home-is-file', 'refused', '`doctor --home FILE` (a regular file, not a folder)', t => {
		const dir = t.dir('store');
		const file = path.join(dir, 'not-a-home');
		fs.writeFileSync(file, 'x');
		return {evidence: [dir], steps: [refused(['doctor', '--home', file], /not a (folder|directory)|is a file/i)]};
	}),
	kind('profile-escape', 'refused', '`--profile ../../etc`: a profile name that leaves the home', async t => {
		const h = await home(t.dir('home'));
		return {
			evidence: [h.root],
			steps: [
				refused(['scan', '--home', h.root, '--profile', '../../etc'], /profile/i),
				refused(['backup', '--home', h.root, '--profile', '../../etc', '--quick'], /profile/i),
			],
		};
	}),
	kind('limit-negative', 'refused', '`sessions --limit -5`', async t => {
		const h = await home(t.dir('home'));
		return {evidence: [h.root], steps: [refused(['sessions', '--db', h.db, '--limit', '-5'], /limit/i)]};
	}),
	kind(
		'sessions-without-routing-columns',
		'refused',
		'a sessions table without session_key/chat_id: refused or a schema warning, never false orphans',
		async t => {
			const h = await home(t.dir('home'));
			const d = new Database(h.db);
			for (const name of d
				.prepare(
					"SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = " +
						"'sessions' AND (sql LIKE '%session_key%' OR sql LIKE '%chat_id%')",
				)
				.pluck()
				.all() as string[]) {
				d.exec(`DROP INDEX "${name}"`);
			}

			d.exec(
				'PRAGMA journal_mode=DELETE; ALTER TABLE sessions DROP COLUMN ' +
					'session_key; ALTER TABLE sessions DROP COLUMN chat_id;',
			);
			d.close();
			return {
				evidence: [h.root],
				steps: [
					step('any', ['scan', '--db', h.db], {
						match: /column|schema/i,
						check: r =>
							/\d+ orphans? /.test(r.stdout) && !/0 orphans/.test(r.stdout) && r.code !== 2
								? 'orphans reported on a store without routing columns'
								: null,
					}),
				],
			};
		},
	),
	kind(
		'tmpdir-missing',
		'refused',
		'TMPDIR names a folder that does not exist: a crashed store with its -wal alone needs a private copy there: ' +
			'one line naming TMPDIR',
		t =>
			crashed(
				t,
				db => fs.rmSync(`${db}-shm`),
				db => [
					refused(['scan', '--db', db], /TMPDIR|temp/i, {env: {TMPDIR: path.join(t.tmpdir, 'gone', 'nowhere')}}),
					refused(['sessions', '--db', db], /TMPDIR|temp/i, {env: {TMPDIR: path.join(t.tmpdir, 'gone', 'nowhere')}}),
				],
			),
	),
	kind(
		'ulimit-f-restore',
		'refused',
		'restore under `ulimit -f 64`: the file size limit, not "an I/O error"',
		async t => {
			const a = await archive(t.dir('archives'));
			const target = path.join(t.dir('target'), 'home');
			return {
				evidence: [path.dirname(a)],
				steps: [refused(['restore', a, '--to', target, '--yes'], /file size limit|ulimit/i, {wrap: ULIMIT(64)})],
				after: () =>
					fs.existsSync(target) && fs.readdirSync(target).length > 0
						? `the refused restore left ${fs.readdirSync(target).join(', ')} in the target`
						: null,
			};
		},
	),
];
