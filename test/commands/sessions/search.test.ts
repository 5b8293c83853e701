/**
 * `hfx search` through the real binary on stores a second process wrote the way Hermes does
 * (issue #24 point 3): v23+ external-content FTS, legacy inline FTS, no FTS, an index marked
 * stale, a pending rebuild window; a phrase in a keyless orphan found and labelled "keyless:
 * orphan"; hostile message text escaped; FTS syntax in the search text never an error; every
 * evidence byte unchanged.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {type FtsLayout, ftsSql} from '../../../source/simulator/hermes-fts.js';
import {evidenceState, hfx, hfxJson} from '../../helpers/cli.js';
import {WriterProcess} from '../../helpers/writer.js';

const MIN = 60;
const T0 = 1_786_060_800;
const KEY = 'agent:main:telegram:dm:9';
const PHRASE = 'the PR that got merged';
const HOSTILE = `merged \u001b[2J\u001b]0;pwned\u0007 fake \u009b31m verdict \u202e${'z'.repeat(20_000)}`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-search-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

/**
 * A home whose store holds a keyed chat and the keyless orphan a restart skipped (its text: PHRASE), written by a
 * second process.
 */
async function home(
	name: string,
	layout: FtsLayout | 'none',
	extra: (w: WriterProcess, orphan: string) => Promise<void> = async () => {},
): Promise<{home: string; db: string}> {
	const root = path.join(dir, name);
	fs.mkdirSync(root);
	const db = path.join(root, 'state.db');
	const w = new WriterProcess(db);
	await w.started();
	if (layout !== 'none') {
		await w.send({op: 'exec', sql: ftsSql(layout)});
	}

	const donor = await w.create({
		source: 'telegram',
		userId: 'u9',
		sessionKey: KEY,
		chatId: '9',
		chatType: 'dm',
		startedAt: T0,
	});
	await w.send({
		op: 'messages',
		id: donor,
		messages: [
			{role: 'user', content: 'deploy the staging server', timestamp: T0 + 5},
			{role: 'assistant', content: 'staging is deployed', timestamp: T0 + 5 * MIN},
		],
	});
	await w.send({op: 'routing', key: KEY, id: donor, at: T0 + 5 * MIN});
	const orphan = await w.create({source: 'telegram', startedAt: T0 + 6 * MIN});
	await w.send({
		op: 'messages',
		id: orphan,
		messages: [
			{role: 'user', content: `what happened to ${PHRASE} yesterday?`, timestamp: T0 + 6 * MIN + 5},
			{role: 'assistant', content: HOSTILE, timestamp: T0 + 6 * MIN + 9},
		],
	});
	await extra(w, orphan);
	await w.send({op: 'close'}).catch(() => undefined);
	await w.kill();
	return {home: root, db};
}

/** Runs the binary and checks that the store's folder is byte for byte what it was. */
function unchanged<T>(root: string, run: () => T): T {
	const before = evidenceState(root);
	const result = run();
	expect(evidenceState(root)).toEqual(before);
	return result;
}

describe('hfx search', () => {
	it(
		'v23+ external-content FTS: finds the phrase in a keyless orphan through ' +
			'the word index, labelled "keyless: orphan", evidence unchanged',
		async () => {
			const h = await home('external', 'external');
			const r = unchanged(h.home, () => hfx(['search', PHRASE, '--home', h.home]));
			expect(r.stderr).toBe('');
			expect(r.code).toBe(0);
			expect(r.stdout).toContain('keyless: orphan');
			expect(r.stdout).toContain(`»${PHRASE}«`);
			expect(r.stdout).toMatch(/messages_fts \(v23\+, external content\), trigram; searched by the word\s+index/);
			const {code, json} = unchanged(h.home, () => hfxJson(['search', PHRASE, '--home', h.home]));
			expect(code).toBe(0);
			const [store] = json.stores;
			expect(store).toMatchObject({ok: true, route: 'fts', index: {layout: 'external', trigram: true, stale: false}});
			expect(store.hits[0]).toMatchObject({
				role: 'user',
				via: 'fts',
				chat: {kind: 'orphan', belongsTo: KEY},
				atUtc: expect.stringMatching(/^2026-08-0\d /),
			});
			expect(store.hits[0].chat.label).toBe(`keyless: orphan of ${KEY}`);
		},
	);

	it('legacy inline FTS (pre-v23: messages_fts without tool_name) is read as such', async () => {
		const h = await home('legacy', 'legacy');
		const {code, json} = unchanged(h.home, () => hfxJson(['search', 'merged', '--db', h.db]));
		expect(code).toBe(0);
		expect(json.stores[0]).toMatchObject({route: 'fts', index: {layout: 'legacy'}});
		expect(json.stores[0].hits.map((x: {chat: {kind: string}}) => x.chat.kind)).toEqual(['orphan', 'orphan']);
	});

	it('a store without FTS tables: says so and finds the phrase by a bounded scan', async () => {
		const h = await home('none', 'none');
		const r = unchanged(h.home, () => hfx(['search', PHRASE, '--home', h.home]));
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('no full-text index (no messages_fts table)');
		expect(r.stdout).toContain('keyless: orphan');
		const {json} = hfxJson(['search', PHRASE, '--home', h.home]);
		expect(json.stores[0]).toMatchObject({route: 'scan', index: {layout: 'none'}, scan: {complete: true}});
		expect(json.stores[0].hits[0]).toMatchObject({via: 'scan', snippet: expect.stringContaining(`»${PHRASE}«`)});
	});

	it('an index marked stale (state_meta.fts_stale): not trusted, the messages are scanned', async () => {
		const h = await home('stale', 'external', async w => {
			// Written with the index's triggers off, as after a failed write: the index misses it.
			await w.send({
				op: 'exec',
				sql:
					'DROP TRIGGER messages_fts_insert; DROP TRIGGER ' +
					'messages_fts_trigram_insert; INSERT INTO state_meta(key, value) VALUES ' +
					"('fts_stale', '1')",
			});
			await w.send({
				op: 'messages',
				id: await w.create({source: 'telegram', startedAt: T0 + 2 * 3600}),
				messages: [{content: 'unindexed merged note', timestamp: T0 + 2 * 3600 + 1}],
			});
		});
		const {code, json} = unchanged(h.home, () => hfxJson(['search', 'unindexed', '--home', h.home]));
		expect(code).toBe(0);
		expect(json.stores[0]).toMatchObject({route: 'scan', index: {stale: true}});
		expect(json.stores[0].notes.join(' ')).toContain('fts_stale');
	});

	it('rows inside a pending rebuild window are in no index: they are scanned and found', async () => {
		const h = await home('window', 'external', async (w, orphan) => {
			// Hermes' rebuild marks the window first; rows inside it are not indexed by the triggers.
			await w.send({
				op: 'exec',
				sql:
					"INSERT INTO state_meta(key, value) VALUES ('fts_rebuild_high_water', " +
					"'1000'), ('fts_rebuild_progress', '0')",
			});
			await w.send({
				op: 'messages',
				id: orphan,
				messages: [{role: 'user', content: 'a windowed sentence', timestamp: T0 + 7 * MIN}],
			});
		});
		const {code, json} = unchanged(h.home, () => hfxJson(['search', 'windowed', '--home', h.home]));
		expect(code).toBe(0);
		expect(json.stores[0].route).toBe('fts');
		expect(json.stores[0].hits).toHaveLength(1);
		expect(json.stores[0].hits[0]).toMatchObject({via: 'rebuild-window', chat: {kind: 'orphan'}});
		expect(json.stores[0].notes.join(' ')).toContain('rebuild is pending');
	});

	it('hostile message text is escaped and bounded; FTS syntax in the search text is never an error', async () => {
		const h = await home('hostile', 'external');
		const r = unchanged(h.home, () => hfx(['search', 'fake verdict', '--home', h.home]));
		expect(r.code).toBe(0);
		expect(r.stdout).not.toMatch(/[\u001B\u0007\u009B\u202E]/);
		expect(r.stdout).toContain('\\x1b[2J');
		expect(Math.max(...r.stdout.split('\n').map(l => l.length))).toBeLessThanOrEqual(80);
		expect(r.stdout.length).toBeLessThan(3000);
		for (const text of [
			'NEAR(merged yesterday',
			'content:merged AND OR NOT',
			'"unbalanced',
			'***',
			'merged*^',
			'a"b"c',
		]) {
			const x = hfx(['search', text, '--home', h.home]);
			expect([0, 1]).toContain(x.code);
			expect(x.stderr).toBe('');
		}
	});

	it('no hit exits 1 and says zero hits are no proof; text too long is refused in one line (exit 2)', async () => {
		const h = await home('nohit', 'external');
		const none = hfx(['search', 'kubernetes', '--home', h.home]);
		expect(none.code).toBe(1);
		expect(none.stdout).toContain('not proof of zero messages');
		const long = unchanged(h.home, () => hfx(['search', 'x'.repeat(5000), '--home', h.home]));
		expect(long.code).toBe(2);
		expect(long.stdout).toBe('');
		expect(long.stderr.trim().split('\n')).toHaveLength(1);
		expect(long.stderr).toContain('at most 1000 are searched');
	});

	it('every profile of a home is searched; each store names its profile', async () => {
		const h = await home('profiles', 'external');
		const work = path.join(h.home, 'profiles', 'work');
		fs.mkdirSync(work, {recursive: true});
		const w = new WriterProcess(path.join(work, 'state.db'));
		await w.started();
		const id = await w.create({source: 'cli', startedAt: T0});
		await w.send({op: 'messages', id, messages: [{content: `notes on ${PHRASE}`, timestamp: T0 + 1}]});
		await w.kill();
		const {code, json} = hfxJson(['search', PHRASE, '--home', h.home]);
		expect(code).toBe(0);
		expect(json.stores.map((s: {profile: string; hits: unknown[]}) => [s.profile, s.hits.length])).toEqual([
			['default', 1],
			['work', 1],
		]);
		expect(json.stores[1].hits[0].chat).toMatchObject({kind: 'keyless', label: 'keyless: cli'});
	});
});

describe(
	'hfx search labels a keyless hit from the rows that ' + 'decide its chat (forensics/rollbacks/chat-scope.ts)',
	() => {
		// Stores the real v25 code wrote (test/fixtures/hermes-agree-edges): a telegram orphan, and a row of
		// another source on which v25's repair-routing fails before listing anything. The label must be the
		// whole store's: no orphan listed, so no chat named. Reading only the telegram rows named one.
		for (const [fixture, orphan] of [
			['json-empty-no-messages', 'A_orphan'],
			['text-started-at', 'B_orphan'],
		] as const) {
			it(
				`${fixture}: the row of another source that fails repair-routing is ` +
					`read, and ${orphan} is "keyless: orphan"`,
				() => {
					const copy = fs.mkdtempSync(path.join(dir, `${fixture}-`));
					fs.copyFileSync(
						path.join(import.meta.dirname, '../../fixtures/hermes-agree-edges', fixture, 'state.db'),
						path.join(copy, 'state.db'),
					);
					const r = hfxJson(['search', 'm0', '--db', path.join(copy, 'state.db')]);
					expect(r.stderr).toBe('');
					const hit = r.json.stores[0].hits.find((h: {sessionId: string}) => h.sessionId === orphan);
					expect(hit.chat).toEqual({kind: 'orphan', label: 'keyless: orphan', sessionKey: null, belongsTo: null});
				},
			);
		}
	},
);
