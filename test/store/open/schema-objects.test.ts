/**
 * Issue #29, class 2: one odd store never blinds the rest. A table hfx reads that is a VIEW, a
 * WITHOUT ROWID or a virtual table is that store's one-line refusal (exit 2, kind schema-object),
 * never an internal error; under a home the other stores are still reported (scan, metrics,
 * watch, the restore drill). A column the rules need that is missing is a finding naming the column
 * and what cannot be decided. All through the real binary; nothing changes beside any store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {StoreWriter} from '../../../source/simulator/store-writer.js';
import {evidenceState, hfx, hfxJson} from '../../helpers/cli.js';
import {type OddKind, dropColumn, makeOdd} from '../../helpers/odd-schema.js';
import {parseExposition, sampleOf} from '../../helpers/prometheus.js';
import {WatchProcess} from '../../helpers/watch-process.js';
import {T0} from '../../fixtures/scenarios.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-schema-objects-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

/** The incident (a keyed chat goes quiet, an orphan of its source collects messages) at `folder/state.db`. */
function incidentStore(folder: string, shape: 'v21' | 'v30' = 'v30'): string {
	fs.mkdirSync(folder, {recursive: true});
	const db = path.join(folder, 'state.db');
	const w = new StoreWriter(db, {shape, journalMode: 'delete'});
	const key = 'agent:main:telegram:dm:1';
	const zombie = w.createSession({
		source: 'telegram',
		userId: 'u1',
		sessionKey: key,
		chatId: '1',
		chatType: 'dm',
		startedAt: T0,
	});
	w.addConversation(zombie, 30, T0 + 10, T0 + 900);
	w.setRouting(key, zombie, T0 + 900);
	const orphan = w.createSession({source: 'telegram', startedAt: T0 + 960});
	w.addConversation(orphan, 50, T0 + 970, T0 + 90_000);
	w.close();
	return db;
}

const WORDS: Record<OddKind, RegExp> = {
	view: /is a VIEW/,
	'without-rowid': /is a WITHOUT ROWID table/,
	virtual: /is a virtual table/,
};

const ODD: Array<[string, OddKind]> = [
	['sessions', 'view'],
	['sessions', 'without-rowid'],
	['sessions', 'virtual'],
	['messages', 'view'],
	['messages', 'without-rowid'],
	['messages', 'virtual'],
	['gateway_routing', 'view'],
	['gateway_routing', 'virtual'],
	['schema_version', 'view'],
	['schema_version', 'virtual'],
];

function expectOneLine(stderr: string, match: RegExp): void {
	expect(stderr).not.toMatch(/internal error|^\s+at /m);
	const lines = stderr.trim().split('\n');
	expect(lines).toHaveLength(1);
	expect(lines[0]).toMatch(match);
	expect(lines[0]).toMatch(/Next: /);
}

describe('a table hfx reads that is not an ordinary table: one line for that store', () => {
	it.each(ODD)('%s as a %s is refused in one line (exit 2) by scan, sessions and routing', (table, kind) => {
		const db = incidentStore(path.join(dir, `one-${table}-${kind}`));
		makeOdd(db, table, kind);
		const before = evidenceState(path.dirname(db));
		const match = new RegExp(`state\\.db: its ${table} ${WORDS[kind].source}`);
		for (const args of [['scan'], ['sessions'], ['routing']]) {
			const r = hfx([...args, '--db', db]);
			expect(r.code, `${args[0]}: ${r.stderr}`).toBe(2);
			expect(r.stdout).toBe('');
			expectOneLine(r.stderr, match);
		}

		const json = hfxJson(['scan', '--db', db]);
		expect(json.code).toBe(2);
		expect(json.json.error.kind).toBe('schema-object');
		expect(evidenceState(path.dirname(db))).toEqual(before);
	});

	it('a WITHOUT ROWID gateway_routing (read by its columns, no rowid needed) is read as usual', () => {
		const db = incidentStore(path.join(dir, 'routing-without-rowid'));
		makeOdd(db, 'gateway_routing', 'without-rowid');
		const r = hfxJson(['scan', '--db', db]);
		expect(r.code, r.stderr).toBe(1);
		expect(r.json.summary.rollbackRisks).toBe(1);
		expect(r.json.routing[0].resolvedVia).toBe('routing-entry');
	});
});

/** A root: the incident as the default profile and as `good`, and `odd` whose sessions is a VIEW. */
function homeWithOdd(name: string): string {
	const root = path.join(dir, name);
	incidentStore(root);
	incidentStore(path.join(root, 'profiles', 'good'));
	makeOdd(incidentStore(path.join(root, 'profiles', 'odd')), 'sessions', 'view');
	return root;
}

const folders = (root: string) => [root, path.join(root, 'profiles', 'good'), path.join(root, 'profiles', 'odd')];
const ODD_LINE = /^hfx: .*profiles\/odd\/state\.db: its sessions is a VIEW.*Next: /;

describe('under a home, the odd store is reported as unreadable and the others as usual', () => {
	it('scan --home reports default and good, refuses odd in one line, exits 2', () => {
		const root = homeWithOdd('scan-home');
		const before = folders(root).map(f => evidenceState(f));
		const r = hfx(['scan', '--home', root]);
		expect(r.code).toBe(2);
		expectOneLine(r.stderr, ODD_LINE);
		expect(r.stdout).toContain(`${root}/state.db  ·  profile default`);
		expect(r.stdout).toContain(`${root}/profiles/good/state.db  ·  profile good`);
		expect(r.stdout.match(/✗ ROLLBACK RISK/g)).toHaveLength(2);
		const json = hfxJson(['scan', '--home', root]).json;
		expect(json.exitCode).toBe(2);
		const odd = json.profiles.find((p: any) => p.error);
		expect(odd.error.kind).toBe('schema-object');
		expect(json.profiles.filter((p: any) => p.summary?.rollbackRisks === 1)).toHaveLength(1);
		expect(folders(root).map(f => evidenceState(f))).toEqual(before);
	});

	it(
		'metrics writes its textfile: hfx_store_up 0 with reason schema-object ' +
			'for odd, 1 and the numbers for the others',
		() => {
			const root = homeWithOdd('metrics-home');
			const out = path.join(dir, 'metrics-out');
			fs.mkdirSync(out);
			const r = hfx(['metrics', '--home', root, '--textfile', path.join(out, 'hfx.prom')]);
			expectOneLine(r.stderr, ODD_LINE);
			const samples = parseExposition(fs.readFileSync(path.join(out, 'hfx.prom'), 'utf8'));
			expect(sampleOf(samples, 'hfx_store_up', {profile: 'odd', reason: 'schema-object'})).toBe(0);
			for (const profile of ['default', 'good']) {
				expect(sampleOf(samples, 'hfx_store_up', {profile})).toBe(1);
				expect(sampleOf(samples, 'hfx_store_info', {profile, schema: 'v30'})).toBe(1);
				expect(sampleOf(samples, 'hfx_rollback_risk_chats', {profile})).toBe(1);
			}
		},
	);

	it('watch keeps following the others and reports odd as unreadable', async () => {
		const root = homeWithOdd('watch-home');
		const out = path.join(dir, 'watch-out');
		fs.mkdirSync(out);
		const textfile = path.join(out, 'hfx.prom');
		const w = new WatchProcess(['--home', root, '--interval', '1s', '--json-lines', '--textfile', textfile]);
		try {
			await w.waitFor(
				events => events.some(e => e.profile === 'good' && e.event === 'rollback-risk-raised'),
				20_000,
				"good's rollback risk",
			);
			await w.waitFor(
				events => events.some(e => e.profile === 'odd' && e.event === 'store-down' && e.reason === 'schema-object'),
				20_000,
				'odd reported unreadable',
			);
			await new Promise(resolve => setTimeout(resolve, 2500));
			expect(w.child.exitCode).toBeNull();
			const samples = parseExposition(fs.readFileSync(textfile, 'utf8'));
			expect(sampleOf(samples, 'hfx_store_up', {profile: 'odd', reason: 'schema-object'})).toBe(0);
			expect(sampleOf(samples, 'hfx_store_up', {profile: 'good'})).toBe(1);
			expect(sampleOf(samples, 'hfx_store_info', {profile: 'good', schema: 'v30'})).toBe(1);
		} finally {
			await w.stop();
		}

		expect(w.stderr).not.toMatch(/internal error|^\s+at /m);
	});

	it('the restore drill of an archive holding it passes and says in one line that hfx cannot scan it', () => {
		const root = homeWithOdd('drill-home');
		const out = path.join(dir, 'drill-out');
		fs.mkdirSync(out);
		const backup = hfx(['backup', '--home', root, '-o', out]);
		expect(backup.code, backup.stderr).toBe(0);
		const archive = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);
		const drill = hfx(['restore', '--drill', archive]);
		expect(drill.stderr).not.toMatch(/internal error|^\s+at /m);
		expect(drill.code, drill.stdout + drill.stderr).toBe(0);
		const odd = drill.stdout.split('\n').filter(l => l.includes('profiles/odd/state.db'));
		expect(odd).toEqual([
			expect.stringMatching(
				/^ {2}! profiles\/odd\/state\.db \(odd\): restored byte for byte .*hfx cannot scan it: its sessions is a VIEW/,
			),
		]);
		expect(drill.stdout).toMatch(/✓ profiles\/good\/state\.db \(good\): 2 sessions/);
	});
});

describe('a column the rules need that is missing is a finding, never a silent verdict', () => {
	it(
		'messages.timestamp missing: a finding names it and what cannot be ' + 'decided; the scan is not healthy (exit 1)',
		() => {
			const db = incidentStore(path.join(dir, 'no-timestamp'), 'v21');
			dropColumn(db, 'messages', 'timestamp');
			const before = evidenceState(path.dirname(db));
			const text = hfx(['scan', '--db', db]);
			expect(text.code).toBe(1);
			expect(text.stdout).toContain(
				'! messages.timestamp is missing: the newest message of each chat cannot be placed, so rollback risk',
			);
			expect(text.stdout).not.toContain('✓ Healthy');
			const r = hfxJson(['scan', '--db', db]);
			expect(r.json.summary.healthy).toBe(false);
			expect(r.json.summary.missingColumns).toEqual(['messages.timestamp']);
			expect(r.json.findings).toContainEqual(
				expect.objectContaining({kind: 'missing-column', subject: 'messages.timestamp'}),
			);
			expect(evidenceState(path.dirname(db))).toEqual(before);
		},
	);

	it(
		'a missing rule column makes repair --apply refuse in one line (exit 2), ' +
			'nothing written, though orphans are adoptable',
		() => {
			const db = incidentStore(path.join(dir, 'no-thread-id-repair'), 'v21');
			dropColumn(db, 'sessions', 'thread_id');
			const plan = hfxJson(['repair', '--db', db]);
			expect(plan.json.adoptions?.length ?? plan.json.plan?.adoptions?.length).toBeGreaterThan(0);
			const before = evidenceState(path.dirname(db));
			const r = hfx(['repair', '--apply', '--yes', '--db', db]);
			expect(r.code).toBe(2);
			expect(r.stderr.trim().split('\n')).toHaveLength(1);
			expect(r.stderr).toContain('the store lacks sessions.thread_id');
			expect(r.stderr).toContain('nothing was written');
			expect(evidenceState(path.dirname(db))).toEqual(before);
		},
	);

	/** Every column but messages.timestamp that Hermes' rules decide on (source/forensics/rule-columns.ts). */
	const RULE_COLUMNS = [
		['sessions', 'ended_at'],
		['sessions', 'end_reason'],
		['sessions', 'parent_session_id'],
		['sessions', 'model_config'],
		['sessions', 'user_id'],
		['sessions', 'chat_id'],
		['sessions', 'chat_type'],
		['sessions', 'thread_id'],
		['gateway_routing', 'session_key'],
		['gateway_routing', 'entry_json'],
	];

	it.each(RULE_COLUMNS)('%s.%s missing is a finding that names it', (table, column) => {
		const db = incidentStore(path.join(dir, `no-${table}-${column}`));
		dropColumn(db, table, column);
		const r = hfxJson(['scan', '--db', db]);
		expect(r.code, r.stderr).toBe(1);
		expect(r.stderr).toBe('');
		const found = r.json.findings.filter((f: any) => f.kind === 'missing-column');
		expect(found.map((f: any) => f.subject)).toEqual([`${table}.${column}`]);
		expect(found[0].detail).toMatch(new RegExp(`^${table}\\.${column} is missing: .*cannot be (decided|told)`));
	});
});
