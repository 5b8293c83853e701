/**
 * The rows `hfx search` reads to label a keyless hit (readSnapshot's `chatsOfSources`, asked of
 * SQLite by chat-scope-where.ts) must be exactly chatScope's rows of the whole store: random stores
 * a second process wrote, with keyless rows whose parent is of another source, rows v25's
 * repair-routing fails on (a model_config that is not JSON, a TEXT or BLOB started_at), tool rows,
 * and now and then a row that makes chatScope read everything ('unknown', '', a BLOB source or parent).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {chatScope, hitScope, scopeRow} from '../../../source/forensics/rollbacks/chat-scope.js';
import {ReadOnlyStore} from '../../../source/store/open/open.js';
import {detectSchema} from '../../../source/store/open/schema.js';
import {readSnapshot} from '../../../source/store/read/read-snapshot.js';
import {prng} from '../../helpers/prng.js';
import {WriterProcess} from '../../helpers/writer.js';

const CONTEXT = {owner: 'default', routingScope: null, legacyRouting: []};
const GATEWAYS = ['telegram', 'discord', 'slack'];
const SOURCES = [...GATEWAYS, ...GATEWAYS, 'cli', 'tool'];
const ODD_SOURCES = ["'unknown'", "''", "X'736c61636b'"];
const T0 = 1_786_060_800;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-scope-where-'));
const db = path.join(dir, 'state.db');
let writer: WriterProcess;
beforeAll(async () => {
	writer = new WriterProcess(db);
	await writer.started();
});
afterAll(async () => {
	await writer?.kill();
	fs.rmSync(dir, {recursive: true, force: true});
});

function quote(text: string): string {
	return `'${text.replaceAll("'", "''")}'`;
}

/**
 * One random row as SQL values: (id, source, session_key, parent_session_id, model_config, started_at),
 * and whether its source or parent is a BLOB (a cell SQLite compares otherwise than JavaScript reads it).
 */
function rowValues(r: () => number, n: number, odd: 'source' | 'parent' | null): {sql: string; blob: boolean} {
	const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
	const source = odd === 'source' && r() < 0.08 ? pick(ODD_SOURCES) : quote(pick(SOURCES));
	const keyed = r() < 0.5;
	const key = keyed ? quote(`agent:main:${pick(GATEWAYS)}:dm:${Math.floor(r() * 3)}`) : 'NULL';
	const parentId = n > 0 && r() < 0.3 ? `s${Math.floor(r() * n)}` : null;
	const parent =
		parentId === null ? 'NULL' : odd === 'parent' && r() < 0.3 ? `CAST(${quote(parentId)} AS BLOB)` : quote(parentId);
	const config = r() < 0.1 ? "'{not json'" : r() < 0.5 ? `'{"model": "m"}'` : 'NULL';
	const started = r() < 0.05 ? "'soon'" : r() < 0.03 ? "''" : r() < 0.03 ? "X'00'" : String(T0 + n * 60);
	return {
		sql: `('s${n}', ${source}, ${key}, ${parent}, ${config}, ${started})`,
		blob: source.startsWith('X') || parent.startsWith('CAST'),
	};
}

/** A fresh set of rows in the store, written by the second process; whether one holds a BLOB source or parent. */
async function writeRows(seed: number): Promise<boolean> {
	const r = prng(seed);
	const odd = seed % 4 === 0 ? 'source' : seed % 4 === 2 ? 'parent' : null;
	const rows = Array.from({length: 40}, (_, n) => rowValues(r, n, odd));
	await writer.send({
		op: 'exec',
		sql:
			// A BLOB parent names no row SQLite's foreign key finds: the check is off, as in a store Hermes did not write.
			'PRAGMA foreign_keys = OFF; DELETE FROM sessions; INSERT INTO sessions (id, source, session_key, ' +
			`parent_session_id, model_config, started_at) VALUES ${rows.map(v => v.sql).join(', ')};`,
	});
	return rows.some(v => v.blob);
}

/**
 * The ids readSnapshot reads for `source`, and the ids chatScope keeps of the whole store: every id
 * when chatScope says so, or when a BLOB source or parent is there (`blob`: then the read takes every row).
 */
function readAndExpected(source: string, blob: boolean): {read: string[]; expected: string[]} {
	const store = ReadOnlyStore.open(db);
	try {
		const schema = detectSchema(store);
		const whole = readSnapshot(store, schema, CONTEXT).snapshot.sessions;
		const scope = chatScope(whole.map(scopeRow), new Set([source]));
		const part = readSnapshot(store, schema, CONTEXT, {columns: 'lean', chatsOfSources: new Set([source])});
		return {
			read: part.snapshot.sessions.map(s => s.id).sort(),
			expected: whole
				.filter(s => blob || scope === null || scope.has(s.id))
				.map(s => s.id)
				.sort(),
		};
	} finally {
		store.close();
	}
}

describe('chatScopeWhere', () => {
	it("reads exactly chatScope's rows of the whole store (random stores, a second process wrote them)", async () => {
		let narrowed = 0;
		let whole = 0;
		for (let seed = 1; seed <= 40; seed++) {
			const blob = await writeRows(seed);
			for (const source of GATEWAYS) {
				const {read, expected} = readAndExpected(source, blob);
				expect(read, `seed ${seed} ${source}`).toEqual(expected);
				if (expected.length < 40) {
					narrowed++;
				} else {
					whole++;
				}
			}
		}

		// Both ways are exercised: a narrowed read, and every row where chatScope reads everything.
		expect(narrowed).toBeGreaterThan(40);
		expect(whole).toBeGreaterThan(10);
	});
});

/** Rows with users too (NULL, '', two names): the ids of the keyless gateway rows. */
async function writeRowsWithUsers(seed: number): Promise<string[]> {
	const r = prng(seed * 31);
	const users = ['NULL', "''", "'u0'", "'u1'", "'u1'"];
	const rows = Array.from({length: 40}, (_, n) => {
		const base = rowValues(r, n, seed % 5 === 0 ? 'source' : null).sql.slice(0, -1);
		const user = users[Math.floor(r() * users.length)]!;
		return `${base}, ${user})`;
	});
	await writer.send({
		op: 'exec',
		sql:
			'PRAGMA foreign_keys = OFF; DELETE FROM sessions; INSERT INTO sessions (id, source, session_key, ' +
			`parent_session_id, model_config, started_at, user_id) VALUES ${rows.join(', ')};`,
	});
	const store = ReadOnlyStore.open(db);
	try {
		return store
			.prepare(
				"SELECT id FROM sessions WHERE session_key IS NULL AND source IN ('telegram', 'discord', 'slack') ORDER BY id",
			)
			.pluck()
			.all() as string[];
	} finally {
		store.close();
	}
}

/** The ids readSnapshot reads for the hits, and what hitScope keeps of the whole store (else chatScope's). */
function readHits(hits: readonly string[]): {read: string[]; expected: string[]; narrowed: boolean} {
	const store = ReadOnlyStore.open(db);
	try {
		const schema = detectSchema(store);
		const whole = readSnapshot(store, schema, CONTEXT).snapshot.sessions;
		const rows = whole.map(scopeRow);
		const sources = new Set(whole.filter(s => hits.includes(s.id)).map(s => s.source));
		const scope = hitScope(rows, new Set(hits)) ?? chatScope(rows, sources);
		const options = {columns: 'lean', chatsOfSources: sources, chatsOfRows: new Set(hits)} as const;
		const part = readSnapshot(store, schema, CONTEXT, options);
		return {
			read: part.snapshot.sessions.map(s => s.id).sort(),
			expected: whole
				.filter(s => scope === null || scope.has(s.id))
				.map(s => s.id)
				.sort(),
			narrowed: hitScope(rows, new Set(hits)) !== null,
		};
	} finally {
		store.close();
	}
}

describe('hitScopeRowids', () => {
	it("reads hitScope's rows of the whole store for each keyless hit (random stores by a writer)", async () => {
		let narrowed = 0;
		let wide = 0;
		for (let seed = 1; seed <= 30; seed++) {
			const keyless = await writeRowsWithUsers(seed);
			for (const hits of [...keyless.slice(0, 6).map(id => [id]), keyless.slice(0, 3)]) {
				const {read, expected, narrowed: n} = readHits(hits);
				expect(read, `seed ${seed} ${hits.join(',')}`).toEqual(expected);
				narrowed += n ? 1 : 0;
				wide += n ? 0 : 1;
			}
		}

		expect(narrowed).toBeGreaterThan(100);
		expect(wide).toBeGreaterThan(5);
	});
});
