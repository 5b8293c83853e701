/**
 * A restore shows what it would drop (issue 15, point 3): the archive's stores against the live
 * ones, session by session, before any write. On the real binary: a live store with messages
 * newer than the archive; `restore --dry-run` says how many would be dropped, exits 1 (0 when it
 * drops nothing) and changes no byte of the home; the confirmation says it in numbers and names
 * the pre-restore copy.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {
	comparisonLines,
	compareInventories,
	compareWithLive,
	wouldDrop,
} from '../../../source/backup/restore/compare.js';
import {restoreArchive} from '../../../source/backup/restore/restore.js';
import {T0} from '../../fixtures/scenarios.js';
import {hfx, hfxJson, hfxOnTerminal} from '../../helpers/cli.js';
import {folderDigest} from '../../helpers/folder-digest.js';
import {WriterProcess} from '../../helpers/writer.js';
import {cleanupTemps, makeHome, tempDir} from '../helpers.js';

let writer: WriterProcess | undefined;
afterEach(async () => {
	await writer?.kill();
	writer = undefined;
});
afterAll(cleanupTemps);

/**
 * A home, an archive of it, then 1 new session of 5 messages and 3 more messages in an archived session, committed by a
 * second process.
 */
async function homeNewerThanArchive(tag: string) {
	const home = makeHome(tag);
	const out = tempDir(`${tag}-out`);
	expect(hfxJson(['backup', '--home', home.root, '-o', out]).code).toBe(0);
	const archive = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);
	const reader = new Database(home.db, {readonly: true});
	const existing = reader
		.prepare('SELECT session_id FROM messages GROUP BY session_id ORDER BY session_id LIMIT 1')
		.pluck()
		.get() as string;
	reader.close();
	writer = new WriterProcess(home.db);
	await writer.started();
	const fresh = await writer.create({
		source: 'telegram',
		userId: 'u-new',
		sessionKey: 'agent:main:telegram:dm:9',
		chatId: '9',
		chatType: 'dm',
		startedAt: T0 + 90_000,
	});
	await writer.send({op: 'conversation', id: fresh, count: 5, from: T0 + 90_010, to: T0 + 90_100});
	await writer.send({op: 'conversation', id: existing, count: 3, from: T0 + 90_200, to: T0 + 90_300});
	await writer.kill();
	writer = undefined;
	return {home, archive};
}

const tree = (dir: string): Record<string, string> =>
	Object.fromEntries(
		['', 'profiles/work', 'backups'].flatMap(sub =>
			fs.existsSync(path.join(dir, sub))
				? Object.entries(folderDigest(path.join(dir, sub))).map(([k, v]) => [`${sub}/${k}`, v])
				: [],
		),
	);

describe('restore --dry-run', () => {
	it('says in numbers what the restore would drop, exit 1, and writes nothing', async () => {
		const {home, archive} = await homeNewerThanArchive('cmp');
		const before = tree(home.root);

		const dry = hfxJson(['restore', archive, '--home', home.root, '--dry-run']);
		expect(dry.code, dry.stderr).toBe(1);
		expect(dry.json.status).toBe('dry-run');
		expect(dry.json.restored).toEqual([]);
		const main = dry.json.comparison.find((c: {path: string}) => c.path === 'state.db');
		expect(main).toMatchObject({
			live: home.db,
			dropped: {sessions: 1, messages: 8},
			added: {sessions: 0, messages: 0},
			error: null,
		});
		expect(dry.json.comparison.find((c: {path: string}) => c.path === 'profiles/work/state.db')).toMatchObject({
			dropped: {sessions: 0, messages: 0},
			added: {sessions: 0, messages: 0},
		});

		const text = hfx(['restore', archive, '--home', home.root, '--dry-run']);
		expect(text.code).toBe(1);
		expect(text.stdout).toContain(
			'state.db: the restore would DROP 1 session and 8 messages the live store has and the archive lacks',
		);
		expect(text.stdout).toContain('nothing was written');
		expect(tree(home.root)).toEqual(before);
	});

	it('exits 0 when the restore would drop nothing, and says what it brings back', () => {
		const home = makeHome('cmp-same');
		const out = tempDir('cmp-same-out');
		expect(hfxJson(['backup', '--home', home.root, '-o', out]).code).toBe(0);
		const archive = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);
		const before = tree(home.root);
		const dry = hfxJson(['restore', archive, '--home', home.root, '--dry-run']);
		expect(dry.code, dry.stderr).toBe(0);
		expect(
			dry.json.comparison.every(
				(c: {dropped: {sessions: number; messages: number}}) => c.dropped.sessions === 0 && c.dropped.messages === 0,
			),
		).toBe(true);
		expect(tree(home.root)).toEqual(before);
		expect(hfx(['restore', archive, '--drill', '--dry-run']).code).toBe(2);
	});

	it('asks with the numbers and the pre-restore folder; declined, nothing is written', async () => {
		const {home, archive} = await homeNewerThanArchive('cmp-ask');
		const before = tree(home.root);
		let question = '';
		await expect(
			restoreArchive({
				archive,
				target: home.root,
				mode: 'home',
				now: () => new Date(Date.UTC(2026, 11, 1, 9, 0, 0)),
				confirm: async q => {
					question = q;
					return false;
				},
			}),
		).rejects.toThrow(/not confirmed; nothing was written/);
		expect(question).toContain('state.db: the restore would DROP 1 session and 8 messages');
		// The folder is named at the write, not at the question (issue #28 point 5): the question says how it is named.
		expect(question).toContain(
			`kept in a new ` +
				`folder ${path.join(home.root, 'backups', 'pre-restore-<UTC time of the write>')} ` +
				`(named when done)`,
		);
		expect(question).not.toMatch(/pre-restore-\d{8}/);
		expect(tree(home.root)).toEqual(before);
	});

	it(
		'confirmed on a terminal: the question names no folder it cannot know, ' +
			'the result names the one made and says what was dropped, not "would"',
		async () => {
			const {home, archive} = await homeNewerThanArchive('cmp-done');
			const r = hfxOnTerminal(['restore', archive, '--home', home.root], 'restore');
			expect(r.code, r.out).toBe(0);
			const [question, result] = r.out.split('✓ RESTORED');
			expect(question).toContain('pre-restore-<UTC time of the write>');
			expect(question).toContain('the restore would DROP 1 session and 8 messages');
			const made = fs.readdirSync(path.join(home.root, 'backups')).filter(n => n.startsWith('pre-restore-'));
			expect(made).toHaveLength(1);
			expect(result).toContain(`kept in ${path.join(home.root, 'backups', made[0]!)}`);
			expect(result).not.toContain('would DROP');
			expect(result).toContain(
				'state.db: the restore dropped 1 session and 8 messages the store had and the archive lacked',
			);
		},
	);
});

describe('compare.ts, in process: the inventories of an archive and a live store, session by session', () => {
	const live = {sessions: {a: {messages: 10, maxId: 10}, b: {messages: 3, maxId: 13}, c: {messages: 2, maxId: 15}}};
	const archived = {sessions: {a: {messages: 7, maxId: 7}, b: {messages: 5, maxId: 12}, d: {messages: 4, maxId: 4}}};

	it('what the live store has and the archive lacks is dropped; the reverse is brought back', () => {
		const c = compareInventories('state.db', '/h/state.db', live, archived);
		// a: 3 newer messages; c: a whole session of 2. Back: b's 2 older messages, d whole.
		expect(c).toEqual({
			path: 'state.db',
			live: '/h/state.db',
			dropped: {sessions: 1, messages: 5},
			added: {sessions: 1, messages: 6},
			error: null,
		});
		expect(wouldDrop([c])).toBe(true);
		expect(comparisonLines([c])).toEqual([
			'state.db: the restore would DROP 1 session and 5 messages the live store has and the archive lacks; ' +
				'it brings back 1 session and 6 messages the live store lacks',
		]);
		expect(comparisonLines([c], true)[0]).toContain('dropped 1 session and 5 messages the store had');
	});

	it('no live store drops nothing; an unreadable side is an error that counts as a possible drop', () => {
		const none = compareInventories('state.db', null, null, archived);
		expect(none.dropped).toEqual({sessions: 0, messages: 0});
		expect(wouldDrop([none])).toBe(false);
		expect(comparisonLines([none])[0]).toBe(
			'state.db: no live store there: nothing to drop (the archive brings 3 sessions, 16 messages)',
		);
		const bad = compareInventories('state.db', '/h/state.db', {error: 'file is not a database'}, archived);
		expect(bad.error).toBe('the live store could not be read (file is not a database)');
		expect(wouldDrop([none, bad])).toBe(true);
		expect(comparisonLines([bad])[0]).toBe(
			'state.db: cannot tell what the restore would drop: the live store could not be read (file is not a database)',
		);
		const badArchive = compareInventories('state.db', null, null, {error: 'locked'});
		expect(badArchive.error).toBe("the archive's copy could not be read (locked)");
	});

	it('the same store on both sides drops nothing and brings nothing', () => {
		const same = compareInventories('profiles/work/state.db', '/h/profiles/work/state.db', live, live);
		expect(wouldDrop([same])).toBe(false);
		expect(comparisonLines([same])[0]).toBe(
			'profiles/work/state.db: the restore drops nothing the live store has; it brings back 0 sessions ' +
				'and 0 messages the live store lacks',
		);
	});

	it("against a target with no store at a database's path, nothing is opened and nothing dropped", () => {
		const target = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-compare-'));
		try {
			const c = compareWithLive(target, [
				{path: 'profiles/work/state.db', inventory: archived},
				{path: 'skipped.db', inventory: null},
			]);
			expect(c.map(x => [x.path, x.live, x.error])).toEqual([['profiles/work/state.db', null, null]]);
			expect(fs.readdirSync(target)).toEqual([]);
		} finally {
			fs.rmSync(target, {recursive: true, force: true});
		}
	});
});
