/**
 * The files of a store as lines (report/files/files-text.ts), on a FilesReport of plain parts and of a real
 * WAL: SQLite (better-sqlite3, in this process) writes a WAL-mode store in a temp folder; its -wal's
 * bytes are scanned (store/wal) and its main file's header parsed once the connection is closed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {parseDbHeader} from '../../../source/store/db-header.js';
import type {FilesReport} from '../../../source/store/files/files-probe.js';
import type {Holder} from '../../../source/store/files/holders.js';
import type {ShmHeader} from '../../../source/store/files/shm.js';
import {scanWal} from '../../../source/store/wal/wal.js';
import {describeFiles} from '../../../source/report/files/files-text.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-files-text-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

/** A WAL-mode store with two committed transactions left in its -wal: the -wal's bytes and the main file's header. */
function walStore(): {wal: Buffer; header: Buffer} {
	const db = path.join(dir, 'state.db');
	const conn = new Database(db);
	conn.pragma('journal_mode = WAL');
	conn.pragma('wal_autocheckpoint = 0');
	conn.exec('CREATE TABLE t (x TEXT)');
	conn.prepare('INSERT INTO t VALUES (?)').run('a');
	// Only the -wal is read while the connection is open: SQLite locks the main file and the -shm, never the -wal.
	const wal = fs.readFileSync(`${db}-wal`);
	conn.close();
	return {wal, header: fs.readFileSync(db).subarray(0, 100)};
}

const STORE = walStore();
const SCAN = scanWal(STORE.wal);

function report(partial: Partial<FilesReport> = {}): FilesReport {
	return {
		dbPath: path.join(dir, 'state.db'),
		sizes: {db: 8192, wal: STORE.wal.length, shm: 32_768, journal: null},
		journalHeader: null,
		wal: SCAN,
		walReset: null,
		walNewCommits: 0,
		shm: null,
		shmError: null,
		dbHeader: parseDbHeader(STORE.header),
		holders: {holders: [], complete: true, unreadablePids: 0, method: 'proc'},
		readAt: 0,
		...partial,
	};
}

const texts = (r: FilesReport, mode: 'wal' | 'delete' = 'wal') => describeFiles(r, mode).map(l => l.text);

describe('describeFiles', () => {
	it("says the files' sizes, the last writer, the WAL's header and its frames by class", () => {
		const lines = texts(report());
		expect(lines.slice(0, 3)).toEqual([
			'state.db          8,192 bytes',
			`state.db-wal      ${STORE.wal.length.toLocaleString('en-US')} bytes`,
			'state.db-shm      32,768 bytes',
		]);
		expect(lines[3]).toMatch(/^last writer SQLite 3\.\d+\.\d+ \(database header\)/);
		expect(lines[4]).toMatch(/^application_id 0 · page size 4096 · \d+ pages in the main file$/);
		expect(lines).toContain(
			`frames      ${SCAN.frameSlots} slots · ${SCAN.validFrames} valid · ${SCAN.commitFrames} commits · last ` +
				`commit frame ${SCAN.lastCommitFrame} · db ${SCAN.dbSize} pages`,
		);
		expect(SCAN.commitFrames).toBe(2);
		expect(lines).toContain('  checkpointed            — (unknown: no consistent -shm)');
		expect(lines).toContain('  in flight, uncommitted  0');
		expect(lines).toContain('  invalid tail            0');
		expect(lines.find(l => l.startsWith('WAL header  page size 4096 · checkpoint seq 0 · salts 0x'))).toMatch(
			/-endian checksums$/,
		);
		expect(lines.find(l => l.startsWith('recent commits frame '))).toBeDefined();
	});

	it('says no -wal, a rollback-journal store, a -journal beside it, and a WAL header in trouble', () => {
		expect(texts(report({wal: null}))).toContain(
			'WAL: no -wal file (the owner closed cleanly, or nothing was written since)',
		);
		const rollback = describeFiles(report({sizes: {db: 1, wal: null, shm: null, journal: 512}}), 'delete');
		expect(rollback).toContainEqual({text: 'state.db-journal  512 bytes', tone: 'warn'});
		expect(rollback).toContainEqual({
			text: 'WAL: not in WAL mode (rollback journal): no WAL frames to show',
			tone: 'muted',
		});
		expect(describeFiles(report({wal: {...SCAN, state: 'bad-magic', header: null}}), 'wal')).toContainEqual({
			text: 'WAL header: bad-magic',
			tone: 'warn',
		});
		expect(describeFiles(report({wal: {...SCAN, state: 'too-short', retry: true}}), 'wal')).toContainEqual({
			text: 'WAL header: too-short (being rewritten; retrying)',
			tone: 'muted',
		});
	});

	it('says a checksum break that hides committed data loudest, and one that hides nothing quietly', () => {
		const hidden = describeFiles(
			report({wal: {...SCAN, silentlyInvisible: true, breakAt: 3, invalidTailFrames: 2, invalidTailCommitFrames: 1}}),
			'wal',
		);
		expect(hidden).toContainEqual({
			text:
				'CHECKSUM BREAK at frame 3: 1 committed transactions after it carry the current salts: committed data ' +
				'SQLite silently does not see. Copy the three files aside before anything checkpoints',
			tone: 'danger',
		});
		expect(hidden.find(l => l.text.startsWith('  invalid tail'))!.tone).toBe('danger');
		const torn = texts(report({wal: {...SCAN, breakAt: 3, breakReason: 'checksum-mismatch'}}));
		expect(torn).toContain(
			'the checksum chain breaks at frame 3 with no commit after it (a page an open transaction rewrote in ' +
				'place, or a torn append): nothing committed is hidden',
		);
		const stale = texts(report({wal: {...SCAN, breakAt: 3, breakReason: 'salt-mismatch'}})).join('\n');
		expect(stale).not.toContain('checksum chain breaks');
	});

	it("says the -shm header as read, an inconsistent one, and its mxFrame against the WAL's last commit", () => {
		const shm = {
			mxFrame: SCAN.lastCommitFrame,
			nBackfill: 0,
			iChange: 5,
			consistent: true,
			readMarks: [0, SCAN.lastCommitFrame, null, null, null],
		} as ShmHeader;
		expect(texts(report({shm}))).toContain(
			`-shm (read in a child process)  mxFrame ${SCAN.lastCommitFrame} · nBackfill 0 · change 5 · consistent`,
		);
		expect(texts(report({shm}))).toContain(`  read marks 0:0 1:${SCAN.lastCommitFrame} 2:- 3:- 4:-`);
		const behind = texts(report({shm: {...shm, mxFrame: 1}}));
		expect(behind).toContain(`  the WAL's last valid commit (${SCAN.lastCommitFrame}) differs from mxFrame (1)`);
		const mid = describeFiles(report({shm: {...shm, consistent: false, mxFrame: 1}}), 'wal');
		expect(mid.find(l => l.text.startsWith('-shm'))!.tone).toBe('warn');
		expect(mid.map(l => l.text).join('\n')).not.toContain('differs from mxFrame');
		expect(texts(report({shmError: 'the -shm is absent'}))).toContain('-shm: the -shm is absent');
	});

	it('says no holder, the processes not readable, and a holder of a deleted -wal loudest', () => {
		expect(texts(report())).toContain(
			'  no other process holds the files (the agent is stopped, or runs in another PID namespace)',
		);
		const holder: Holder = {
			pid: 42,
			command: 'python3',
			cmdline: 'hermes gateway',
			files: [],
			locks: [],
			holdsDeletedWal: true,
		};
		const lines = describeFiles(
			report({holders: {holders: [holder], complete: false, unreadablePids: 3, method: 'proc'}}),
			'wal',
		);
		expect(lines).toContainEqual({text: 'holders (from /proc; 3 processes not readable: run as root to see all)'});
		expect(lines).toContainEqual({
			text: '  ↳ pid 42 holds a DELETED -wal: an old WAL generation. Stop it before any restart, repair or restore',
			tone: 'danger',
		});
	});
});
