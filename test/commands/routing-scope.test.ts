/**
 * Routing entries are scoped (docs/hermes-rules.md, routing-scope): the gateway loads only the
 * gateway_routing rows whose scope is the resolved path of its own sessions folder, and imports
 * the legacy mirror sessions/sessions.json for keys those lack. Real files, the real binary.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {StoreWriter} from '../../source/simulator/store-writer.js';
import {hfx, hfxJson} from '../helpers/cli.js';

const T0 = 1_786_060_800;
const K = 'agent:main:telegram:dm:4100';
const dirs: string[] = [];
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

type Built = {dir: string; db: string; older: string; newer: string; scope: string};

/** Two live keyed rows of one chat; the newer holds the newest messages. `routing` writes entries. */
function build(routing: (w: StoreWriter, ids: {older: string; newer: string}) => void): Built {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-scope-'));
	dirs.push(dir);
	const db = path.join(dir, 'state.db');
	const w = new StoreWriter(db, {shape: 'v30'});
	const row = {source: 'telegram', userId: 'u1', sessionKey: K, chatId: '4100', chatType: 'dm'};
	const older = w.createSession({...row, startedAt: T0});
	w.addConversation(older, 6, T0 + 5, T0 + 600);
	const newer = w.createSession({...row, startedAt: T0 + 3600});
	w.addConversation(newer, 6, T0 + 3605, T0 + 4200);
	routing(w, {older, newer});
	const scope = w.routingScope;
	w.close();
	return {dir, db, older, newer, scope};
}

function chat(built: Built) {
	const {json} = hfxJson(['scan', '--db', built.db], {env: {HERMES_HOME: ''}});
	expect(json.database.routingScope).toBe(built.scope);
	return (json.routing as any[]).find(r => r.sessionKey === K);
}

function mirror(dir: string, data: unknown): void {
	fs.mkdirSync(path.join(dir, 'sessions'), {recursive: true});
	fs.writeFileSync(path.join(dir, 'sessions', 'sessions.json'), typeof data === 'string' ? data : JSON.stringify(data));
}

describe("routing entries of the gateway's own scope", () => {
	it("the store's scope is the resolved <home>/sessions", () => {
		const built = build(() => undefined);
		expect(built.scope).toBe(path.join(fs.realpathSync(built.dir), 'sessions'));
	});

	it('ignores an entry of another scope, however new: the exact-key query decides', () => {
		const built = build((w, ids) => w.setRouting(K, ids.older, T0 + 9000, '/srv/other-gateway/sessions'));
		const c = chat(built);
		expect(c).toMatchObject({
			restartResolvesTo: built.newer,
			resolvedVia: 'exact-key',
			routingEntry: null,
			rollbackRisk: false,
		});
		expect((c.notes as string[]).join(' ')).toContain('another scope');
	});

	it(
		'judges a copied store as the gateway it came from with --routing-scope, ' +
			'and says so when every row is foreign',
		() => {
			const built = build((w, ids) => w.setRouting(K, ids.older, T0 + 700, '/srv/origin/.hermes/sessions'));
			const plain = hfxJson(['scan', '--db', built.db], {env: {HERMES_HOME: ''}}).json;
			expect((plain.database.notes as string[]).join(' ')).toContain('--routing-scope /srv/origin/.hermes/sessions');
			expect((plain.routing as any[]).find(r => r.sessionKey === K)).toMatchObject({
				restartResolvesTo: built.newer,
				routingEntry: null,
			});
			const scoped = hfxJson(['scan', '--db', built.db, '--routing-scope', '/srv/origin/.hermes/sessions'], {
				env: {HERMES_HOME: ''},
			}).json;
			expect(scoped.database.routingScope).toBe('/srv/origin/.hermes/sessions');
			expect(scoped.database.notes.join(' ')).not.toContain('--routing-scope');
			expect((scoped.routing as any[]).find(r => r.sessionKey === K)).toMatchObject({
				restartResolvesTo: built.older,
				resolvedVia: 'routing-entry',
				rollbackRisk: true,
			});
		},
	);

	it("refuses --routing-scope without --db (it names one copied store's gateway)", () => {
		const built = build(() => undefined);
		const r = hfx(['scan', '--home', built.dir, '--routing-scope', '/x/sessions']);
		expect(r.code).toBe(2);
		expect(r.stderr).toContain('--routing-scope');
	});

	it("honours its own scope's entry over a newer one of another scope", () => {
		const built = build((w, ids) => {
			w.setRouting(K, ids.older, T0 + 700);
			w.setRouting(K, ids.newer, T0 + 9000, '/srv/other-gateway/sessions');
		});
		expect(chat(built)).toMatchObject({
			restartResolvesTo: built.older,
			resolvedVia: 'routing-entry',
			routingEntrySource: 'gateway_routing',
			rollbackRisk: true,
		});
	});
});

describe('the legacy sessions.json mirror', () => {
	it('fills a key gateway_routing lacks (the README key is skipped)', () => {
		const built = build(() => undefined);
		mirror(built.dir, {_README: 'written by the gateway', [K]: {session_id: built.older, session_key: K}});
		const c = chat(built);
		expect(c).toMatchObject({
			restartResolvesTo: built.older,
			resolvedVia: 'routing-entry',
			routingEntrySource: 'sessions.json',
			rollbackRisk: true,
		});
	});

	it('loses to a usable gateway_routing entry of the own scope', () => {
		const built = build((w, ids) => w.setRouting(K, ids.newer, T0 + 4300));
		mirror(built.dir, {[K]: {session_id: built.older}});
		expect(chat(built)).toMatchObject({restartResolvesTo: built.newer, routingEntrySource: 'gateway_routing'});
	});

	it('fills a key whose own-scope row the gateway skips (not JSON)', () => {
		const built = build((w, ids) => {
			w.setRouting(K, ids.newer, T0 + 4300);
			w.exec("UPDATE gateway_routing SET entry_json = '{broken'");
		});
		mirror(built.dir, {[K]: {session_id: built.older}});
		const c = chat(built);
		expect(c).toMatchObject({restartResolvesTo: built.older, routingEntrySource: 'sessions.json'});
		expect((c.notes as string[]).join(' ')).toContain('skipped by the gateway');
	});

	it('a mirror that is not JSON imports nothing and is reported, never read as entries', () => {
		const built = build(() => undefined);
		mirror(built.dir, '{not json');
		const {json} = hfxJson(['scan', '--db', built.db], {env: {HERMES_HOME: ''}});
		expect(json.database.legacyMirror.problem).toContain('not valid JSON');
		expect((json.routing as any[]).find(r => r.sessionKey === K)).toMatchObject({
			restartResolvesTo: built.newer,
			routingEntrySource: null,
		});
	});
});
