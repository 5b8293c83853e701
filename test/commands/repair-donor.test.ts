import fs from 'node:fs';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {SCENARIOS, buildScenario} from '../fixtures/scenarios.js';
import {hfx, hfxJson, hfxOnTerminal} from '../helpers/cli.js';
import {folderHashes} from '../helpers/folder-hashes.js';

const TG = 'agent:main:telegram:dm:777001';
const built: string[] = [];
afterAll(() => {
	for (const dir of built) {
		fs.rmSync(dir, {recursive: true, force: true});
	}
});

function scenario(id: string) {
	const b = buildScenario(SCENARIOS.find(s => s.id === id)!, 'v30');
	built.push(b.dir);
	return b;
}

const suffix = (id: string) => id.split('_').at(-1)!;

/** Every sessions row as SQLite stores it: each cell's quote() (type and bytes), by id. */
function quotedRows(db: string): Record<string, string> {
	const conn = new Database(db, {readonly: true});
	try {
		const columns = (conn.prepare('PRAGMA table_info(sessions)').all() as Array<{name: string}>).map(c => c.name);
		const rows = conn
			.prepare(`SELECT id, ${columns.map(c => `quote("${c}")`).join(" || '|' || ")} AS q FROM sessions ORDER BY id`)
			.all() as Array<{id: string; q: string}>;
		return Object.fromEntries(rows.map(r => [r.id, r.q]));
	} finally {
		conn.close();
	}
}

describe('the candidate donors of a refused orphan', () => {
	it('are shown by scan and the dry run, each with when it fell quiet, with the command that adopts from one', () => {
		const {dbPath, ids} = scenario('R1-tip');
		const scan = hfx(['scan', '--db', dbPath]);
		expect(scan.code).toBe(1);
		for (const out of [scan.stdout, hfx(['repair', '--db', dbPath]).stdout]) {
			expect(out).toContain(
				`candidate donor ${ids.tip} (${TG}): fell quiet 60 seconds before it ` +
					`started (last active 2026-08-07 00:08 UTC)`,
			);
			expect(out).toContain(`candidate donor ${ids.parent} (${TG}): fell quiet 4 minutes before it started`);
			expect(out).toContain(`hfx repair --only ${suffix(ids.orphan!)} --donor ${suffix(ids.tip!)}`);
		}
	});
});

describe('hfx repair --only ORPHAN --donor DONOR', () => {
	it(
		"previews the operator's adoption in a dry run (why repair-routing " +
			'refused, whose choice it is) and writes nothing',
		() => {
			const {dir, dbPath, ids} = scenario('R1-tip');
			const before = folderHashes(dir);
			const r = hfx(['repair', '--db', dbPath, '--only', suffix(ids.orphan!), '--donor', suffix(ids.tip!)]);
			expect(r.code).toBe(0);
			expect(r.stdout).toContain(`→ adopt ${ids.orphan} (200 messages) into ${TG}`);
			expect(r.stdout).toContain(`evidence: your choice of donor ${ids.tip} (repair-routing refuses this orphan)`);
			expect(r.stdout).toContain(
				`! operator choice: repair-routing refuses ${ids.orphan} ` +
					`(ambiguous_predecessor: ambiguous: more than one keyed predecessor ` +
					`matches this window)`,
			);
			expect(r.stdout).toMatch(new RegExp(`parent_session_id\\s+NULL\\s+${ids.tip}`));
			expect(r.stdout).toMatch(/end_reason\s+NULL\s+superseded_by_repair/);
			expect(r.stdout).toContain(`hfx repair --apply --db ${dbPath} --only ${ids.orphan} --donor ${ids.tip}`);
			const json = hfxJson(['repair', '--db', dbPath, '--only', ids.orphan!, '--donor', ids.tip!]).json;
			expect(json.adoptions[0]).toMatchObject({
				orphanId: ids.orphan,
				donorId: ids.tip,
				evidence: 'operator',
				refusedBecause: {reasonKind: 'ambiguous_predecessor'},
			});
			expect(folderHashes(dir)).toEqual(before);
		},
	);

	it(
		'applies only after both suffixes are typed: snapshot, audit entry, then ' +
			'--undo puts every row back byte for byte',
		() => {
			const {dir, dbPath, ids} = scenario('R1-tip');
			const rows = quotedRows(dbPath);
			const before = folderHashes(dir);
			const args = ['repair', '--apply', '--db', dbPath, '--only', ids.orphan!, '--donor', ids.tip!];
			// The orphan's suffix alone (what an adoption of repair-routing's asks) is not enough here.
			const half = hfxOnTerminal(args, suffix(ids.orphan!));
			expect(half.out).toContain(
				`Type the orphan's random suffix and the donor's (${suffix(ids.orphan!)} ${suffix(ids.tip!)}) to confirm`,
			);
			expect(half.code).toBe(2);
			expect(quotedRows(dbPath)).toEqual(rows);
			expect(folderHashes(dir)).toEqual(before);

			const applied = hfxOnTerminal(args, `${suffix(ids.orphan!)} ${suffix(ids.tip!)}`);
			expect(applied.code, applied.out).toBe(0);
			expect(applied.out).toContain(`✓ ${ids.orphan} now owns ${TG}; a restart resumes ${ids.orphan}`);
			expect(applied.out).toMatch(/snapshot: .*pre-repair/);
			const entry = /undo with: hfx repair --undo (\d+)/.exec(applied.out)![1]!;
			const conn = new Database(dbPath, {readonly: true});
			const orphan = conn
				.prepare('SELECT session_key, parent_session_id, chat_id, user_id FROM sessions WHERE id = ?')
				.get(ids.orphan) as Record<string, unknown>;
			const donor = conn
				.prepare('SELECT session_key, end_reason, ended_at FROM sessions WHERE id = ?')
				.get(ids.tip) as Record<string, unknown>;
			const parent = conn.prepare('SELECT end_reason FROM sessions WHERE id = ?').pluck().get(ids.parent);
			conn.close();
			expect(orphan).toEqual({session_key: TG, parent_session_id: ids.tip, chat_id: '777001', user_id: 'u-teknium'});
			expect(donor).toMatchObject({session_key: TG, end_reason: 'superseded_by_repair'});
			expect(typeof donor.ended_at).toBe('number');
			expect(parent).toBe('compression');

			const audit = hfxJson(['audit', 'show', '--db', dbPath]).json;
			const apply = audit.entries.find((e: {seq: number}) => String(e.seq) === entry);
			expect(apply.operatorChoices).toEqual([
				{
					orphanId: ids.orphan,
					donorId: ids.tip,
					refusedBecause: 'ambiguous_predecessor: ambiguous: more than one keyed predecessor matches this window',
				},
			]);
			expect(hfx(['audit', 'show', '--db', dbPath]).stdout).toContain(
				`operator's choice: ${ids.orphan} adopted from ${ids.tip} (repair-routing refused it: ambiguous_predecessor`,
			);

			const undone = hfx(['repair', '--undo', entry, '--yes', '--db', dbPath]);
			expect(undone.code, undone.stdout + undone.stderr).toBe(0);
			expect(quotedRows(dbPath)).toEqual(rows);
		},
	);

	const refusals: Array<[string, string, (ids: Record<string, string>) => string[], RegExp]> = [
		[
			'the orphan itself',
			'R1-tip',
			ids => ['--only', ids.orphan!, '--donor', ids.orphan!],
			/the donor \S+ is the orphan itself/,
		],
		[
			'a donor that is not keyed',
			'R4',
			ids => ['--only', ids.first!, '--donor', ids.second!],
			/is not keyed \(its session_key is NULL\)/,
		],
		[
			'a donor of another source',
			'G4',
			ids => ['--only', ids.orphan!, '--donor', ids.ownDonor!],
			/is a discord row and the orphan a telegram one: another source/,
		],
		[
			'a donor of another profile',
			'G4',
			ids => ['--only', ids.orphan!, '--donor', ids.donor!],
			/belongs to profile other, the orphan to work/,
		],
		['no --only', 'R1-tip', ids => ['--donor', ids.tip!], /--donor needs exactly one --only ORPHAN/],
		[
			'a donor that names nothing',
			'R1-tip',
			ids => ['--only', ids.orphan!, '--donor', 'nosuchdonor'],
			/--donor no session "nosuchdonor"/,
		],
	];
	it.each(refusals)(
		'refuses %s: exit 2, one line, nothing written (dry run and --apply)',
		(_what, id, args, reason) => {
			const {dir, dbPath, ids} = scenario(id);
			const before = folderHashes(dir);
			for (const mode of [[], ['--apply', '--yes']]) {
				const r = hfx(['repair', '--db', dbPath, ...mode, ...args(ids)]);
				expect(r.code, r.stdout + r.stderr).toBe(2);
				expect(r.stderr.trim().split('\n')).toHaveLength(1);
				expect(r.stderr).toMatch(reason);
				expect(r.stderr).toContain('--donor refused');
				expect(folderHashes(dir)).toEqual(before);
			}
		},
	);

	it('refuses an orphan repair-routing adopts anyway from another donor, and says so', () => {
		const {dir, dbPath, ids} = scenario('R1');
		// A second keyed row of the chat, quiet long before: the operator names it instead of repair-routing's donor.
		const conn = new Database(dbPath);
		conn
			.prepare(
				'INSERT INTO sessions (id, source, user_id, session_key, chat_id, ' +
					'chat_type, started_at, ended_at, end_reason) SELECT ?, source, user_id, ' +
					'session_key, chat_id, chat_type, started_at - 86400, started_at - ' +
					"80000, 'idle' FROM sessions WHERE id = ?",
			)
			.run('20260806_000000_0ldd0n0r', ids.zombie);
		conn.close();
		const before = folderHashes(dir);
		const r = hfx(['repair', '--db', dbPath, '--only', ids.orphan!, '--donor', '0ldd0n0r']);
		expect(r.code).toBe(2);
		expect(r.stderr.trim().split('\n')).toHaveLength(1);
		expect(r.stderr).toContain(
			`repair-routing adopts ${ids.orphan} anyway, from ${ids.zombie} ` +
				`(evidence contiguity), not from 20260806_000000_0ldd0n0r: drop --donor ` +
				`to take that adoption`,
		);
		expect(folderHashes(dir)).toEqual(before);
		// Naming repair-routing's own donor is that adoption, as without --donor.
		const same = hfxJson(['repair', '--db', dbPath, '--only', ids.orphan!, '--donor', ids.zombie!]).json;
		expect(same.adoptions[0]).toMatchObject({orphanId: ids.orphan, donorId: ids.zombie, evidence: 'contiguity'});
	});
});
