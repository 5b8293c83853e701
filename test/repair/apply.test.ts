/**
 * The fail-closed repair on real stores: Hermes' exact writes, one test per refusal, undo, the
 * audit chain, and an interrupt in the middle of the write transaction.
 */
import {execFileSync, spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {applyRepair} from '../../source/repair/apply.js';
import {auditPathFor, verifyAudit} from '../../source/store/audit-trail.js';
import {evidenceState, hfx, hfxJson} from '../helpers/cli.js';
import {sessionRows} from '../helpers/session-rows.js';
import {ROOT, WriterProcess} from '../helpers/writer.js';
import {SCENARIOS, T0, buildScenario} from '../fixtures/scenarios.js';

const FIXTURE = path.resolve(ROOT, 'test/fixtures/hermes-v21-incident');
const dirs: string[] = [];
const writers: WriterProcess[] = [];
afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterAll(() => {
	for (const d of dirs) {
		spawnSync('umount', [d]);
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function temp(tag: string): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-repair-${tag}-`));
	dirs.push(d);
	return d;
}

const rows = sessionRows;

function count(db: string, sql: string): number {
	const conn = new Database(db, {readonly: true});
	try {
		return conn.prepare(sql).pluck().get() as number;
	} finally {
		conn.close();
	}
}

const scenario = (id: string) => SCENARIOS.find(s => s.id === id)!;
const FILLED = ['chat_id', 'chat_type', 'thread_id', 'user_id', 'origin_json', 'display_name'];

/** Every column of every row after == before, except exactly Hermes' writes for the given adoptions. */
function expectHermesWrites(
	before: Map<string, Record<string, unknown>>,
	after: Map<string, Record<string, unknown>>,
	adoptions: Array<{orphan: string; donor: string}>,
	applyWindow: [number, number],
) {
	const touched = new Map<string, Set<string>>();
	for (const {orphan, donor} of adoptions) {
		const o = before.get(orphan)!;
		const d = before.get(donor)!;
		const oa = after.get(orphan)!;
		const da = after.get(donor)!;
		expect(oa.session_key).toBe(d.session_key);
		for (const c of FILLED) {
			expect(oa[c], `${orphan}.${c}`).toEqual(o[c] ?? d[c]);
		}

		expect(oa.parent_session_id).toBe(o.parent_session_id ?? donor);
		if (d.ended_at === null) {
			expect(da.ended_at as number).toBeGreaterThanOrEqual(applyWindow[0]);
			expect(da.ended_at as number).toBeLessThanOrEqual(applyWindow[1]);
		} else {
			expect(da.ended_at).toBe(d.ended_at);
		}

		expect(da.end_reason).toBe('superseded_by_repair');
		touched.set(orphan, new Set(['session_key', ...FILLED, 'parent_session_id']));
		touched.set(donor, new Set(['ended_at', 'end_reason']));
	}

	for (const [id, row] of before) {
		for (const [col, value] of Object.entries(row)) {
			if (!touched.get(id)?.has(col)) {
				expect(after.get(id)![col], `${id}.${col} must not change`).toEqual(value);
			}
		}
	}
}

describe('apply on copies of the scenario stores and of the real Hermes fixture', () => {
	it.each(['v21', 'v30'] as const)(
		'R1 (%s): the orphan carries the key, the zombie is retired, a restart resumes the orphan',
		async shape => {
			const {dir, dbPath, ids} = buildScenario(scenario('R1'), shape, {dir: temp(`r1-${shape}`)});
			const before = rows(dbPath);
			const messages = count(dbPath, 'SELECT count(*) FROM messages');
			const t0 = Date.now() / 1000;
			const r = hfxJson(['repair', '--db', dbPath, '--apply', '--yes']);
			const t1 = Date.now() / 1000;
			expect(r.code).toBe(0);
			expect(r.json.result).toBe('applied');
			expectHermesWrites(before, rows(dbPath), [{orphan: ids.orphan!, donor: ids.zombie!}], [t0, t1]);
			expect(count(dbPath, 'SELECT count(*) FROM messages')).toBe(messages);
			const scan = hfxJson(['scan', '--db', dbPath]);
			expect(scan.code).toBe(0);
			expect(scan.json.routing[0]).toMatchObject({
				restartResolvesTo: ids.orphan,
				newestActivityIn: ids.orphan,
				rollbackRisk: false,
			});
			expect(fs.readdirSync(path.join(dir, 'state-snapshots')).some(n => n.endsWith('-pre-repair'))).toBe(true);
		},
	);

	it("R2: lineage adoption keeps the orphan's own parent and user", async () => {
		const {dbPath, ids} = buildScenario(scenario('R2'), 'v30', {dir: temp('r2')});
		const before = rows(dbPath);
		const t0 = Date.now() / 1000;
		expect(hfx(['repair', '--db', dbPath, '--apply', '--yes']).code).toBe(0);
		expectHermesWrites(before, rows(dbPath), [{orphan: ids.orphan!, donor: ids.donor!}], [t0, Date.now() / 1000]);
	});

	it('R4: contested orphans are refused and nothing is written (exit 1: refused, nothing to apply)', () => {
		const {dir, dbPath} = buildScenario(scenario('R4'), 'v30', {dir: temp('r4')});
		const before = evidenceState(dir);
		const r = hfxJson(['repair', '--db', dbPath, '--apply', '--yes']);
		expect(r.code).toBe(1);
		expect(r.json.result).toBe('nothing-to-do');
		expect(evidenceState(dir).db).toBe(before.db);
	});

	it(
		'the real Hermes fixture: both adoptable orphans adopted exactly as ' +
			'Hermes would; the rest listed as refused (exit 1)',
		() => {
			const dir = temp('fixture');
			const db = path.join(dir, 'state.db');
			fs.copyFileSync(path.join(FIXTURE, 'state.db'), db);
			fs.chmodSync(db, 0o644);
			const before = rows(db);
			const t0 = Date.now() / 1000;
			const r = hfxJson(['repair', '--db', db, '--apply', '--yes']);
			expect(r.code).toBe(1);
			expect(r.json.result).toBe('applied');
			expectHermesWrites(
				before,
				rows(db),
				[
					{orphan: '20260807_052242_427c496c', donor: '20260807_050620_46fab954'},
					{orphan: '20260808_052508_14665640', donor: '20260808_001820_8719394d'},
				],
				[t0, Date.now() / 1000],
			);
			const scan = hfxJson(['scan', '--db', db]).json;
			for (const key of ['agent:main:telegram:dm:777001', 'agent:main:discord:group:9001']) {
				expect(scan.routing.find((c: any) => c.sessionKey === key).rollbackRisk, key).toBe(false);
			}

			expect(scan.orphans).toHaveLength(6);
		},
	);
});

describe('refusals: exit 2, one line naming the cause, nothing written', () => {
	it('a path that is not a store (missing, not SQLite): no audit entry, no file created', () => {
		const dir = temp('not-a-store');
		// Over 100 bytes: a shorter file is refused as too short to be a database (test/commands/exits.test.ts).
		fs.writeFileSync(path.join(dir, 'notes.txt'), 'root:x:0:0:root:/root:/bin/bash\n'.repeat(4));
		for (const [name, cause] of [
			['missing.db', 'no such file'],
			['notes.txt', 'not a SQLite database'],
		] as const) {
			for (const args of [['repair'], ['repair', '--apply', '--yes'], ['repair', '--undo', '1', '--yes']]) {
				const r = hfx([...args, '--db', path.join(dir, name)]);
				expect(r.code, args.join(' ')).toBe(2);
				expect(r.stderr.trim().split('\n')).toHaveLength(1);
				expect(r.stderr).toContain(`${path.join(dir, name)}: ${cause}`);
				expect(fs.readdirSync(dir)).toEqual(['notes.txt']);
			}
		}
	});

	it('a live writer process holding the store', async () => {
		const dir = temp('holder');
		const db = path.join(dir, 'state.db');
		const w = new WriterProcess(db);
		writers.push(w);
		await w.started();
		const zombie = await w.create({
			source: 'telegram',
			userId: 'u',
			sessionKey: 'agent:main:telegram:dm:1',
			chatId: '1',
			chatType: 'dm',
			startedAt: T0,
		});
		await w.send({op: 'conversation', id: zombie, count: 5, from: T0, to: T0 + 60});
		const orphan = await w.create({source: 'telegram', startedAt: T0 + 120});
		await w.send({op: 'conversation', id: orphan, count: 5, from: T0 + 130, to: T0 + 200});
		const before = evidenceState(dir);
		const r = hfx(['repair', '--db', db, '--apply', '--yes']);
		expect(r.code).toBe(2);
		expect(r.stdout).toContain('✗ no other process holds state.db, -wal or -shm');
		expect(r.stderr).toContain(`pid ${w.pid}`);
		expect(r.stderr).toContain('stop the gateway');
		const after = evidenceState(dir);
		expect(after.db).toBe(before.db);
		expect(after.wal).toBe(before.wal);
		expect(after.listing.filter(n => n !== 'hfx-audit.jsonl' && n !== 'hfx-audit.head')).toEqual(
			before.listing.filter(n => n !== 'hfx-audit.jsonl' && n !== 'hfx-audit.head'),
		);
	});

	it('a process holding a deleted -wal inode', async () => {
		const dir = temp('deleted-wal');
		const db = path.join(dir, 'state.db');
		const w = new WriterProcess(db);
		writers.push(w);
		await w.started();
		const id = await w.create({source: 'telegram', startedAt: T0});
		await w.send({op: 'conversation', id, count: 3, from: T0, to: T0 + 10});
		fs.unlinkSync(`${db}-wal`);
		const r = hfxJson(['repair', '--db', db, '--apply', '--yes']);
		expect(r.code).toBe(2);
		const check = r.json.checks.find((c: any) => c.id === 'no-deleted-wal');
		expect(check.ok).toBe(false);
		expect(check.detail).toContain(`pid ${w.pid}`);
		expect(fs.existsSync(path.join(dir, 'state-snapshots'))).toBe(false);
	});

	it('a plan made stale by a commit between the plan and the write', async () => {
		const {dir, dbPath, ids} = buildScenario(scenario('R1'), 'v30', {dir: temp('stale')});
		const outcome = await applyRepair({
			dbPath,
			owner: 'default',
			maxGapSeconds: 900,
			argv: ['test'],
			yes: false,
			log() {},
			async confirm() {
				// Another process commits while the operator reads the plan.
				execFileSync('sqlite3', [dbPath, `UPDATE sessions SET title = 'renamed meanwhile' WHERE id = '${ids.orphan}'`]);
				return true;
			},
		});
		expect(outcome.exitCode).toBe(2);
		expect(outcome.result).toBe('refused');
		expect(outcome.reason).toMatch(/plan is stale: the rows the plan touches changed/);
		expect(outcome.next).toMatch(/run hfx repair again/);
		const after = rows(dbPath);
		expect(after.get(ids.orphan!)!.session_key).toBeNull();
		expect(after.get(ids.zombie!)!.end_reason).toBeNull();
		expect(verifyAudit(auditPathFor(dbPath)).ok).toBe(true);
		void dir;
	});

	it(
		'an operator-chosen donor (--donor) ended or unkeyed after the plan: the ' +
			'write re-checks it and refuses, nothing written',
		async () => {
			for (const change of ["ended_at = 1, end_reason = 'idle'", 'session_key = NULL']) {
				const {dbPath, ids} = buildScenario(scenario('R1-tip'), 'v30', {dir: temp('donor-moved')});
				const before = rows(dbPath);
				const outcome = await applyRepair({
					dbPath,
					owner: 'default',
					maxGapSeconds: 900,
					only: [ids.orphan!],
					donor: ids.tip!,
					argv: ['test'],
					yes: false,
					log() {},
					async confirm(planned) {
						expect(planned.plan.adoptions[0]).toMatchObject({donorId: ids.tip, evidence: 'operator'});
						// Another process changes the donor while the operator reads the plan.
						execFileSync('sqlite3', [dbPath, `UPDATE sessions SET ${change} WHERE id = '${ids.tip}'`]);
						return true;
					},
				});
				expect(outcome.exitCode, change).toBe(2);
				expect(outcome.reason).toMatch(/plan is stale: the rows the plan touches changed/);
				const after = rows(dbPath);
				expect(after.get(ids.orphan!)).toEqual(before.get(ids.orphan!));
				expect(after.get(ids.tip!)!.end_reason).not.toBe('superseded_by_repair');
			}
		},
	);

	it('the snapshot failing on a full disk (a small tmpfs, filled)', () => {
		const asRoot = process.getuid?.() === 0;
		const dir = temp('full');
		const mounted = asRoot && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir]).status === 0;
		if (!mounted) {
			// Without root (or tmpfs) there is no small disk to fill; say so rather than pass silently.
			expect.soft(mounted, 'needs root to mount a small tmpfs').toBe(false);
			return;
		}

		const {dbPath} = buildScenario(scenario('R1'), 'v30', {dir});
		// Read the rows before filling the disk: even a read-only open of a clean WAL store must create -wal/-shm.
		const before = rows(dbPath);
		// Fill the disk so the ~1 MiB snapshot copy cannot fit.
		const fd = fs.openSync(path.join(dir, 'filler'), 'w');
		try {
			for (;;) {
				fs.writeSync(fd, Buffer.alloc(64 * 1024));
			}
		} catch {
			// ENOSPC: the disk is full, which is the point.
		} finally {
			fs.closeSync(fd);
		}

		const listing = fs.readdirSync(dir);
		const r = hfx(['repair', '--db', dbPath, '--apply', '--yes']);
		expect(r.code).toBe(2);
		expect(r.stderr).toMatch(/snapshot/);
		const snaps = path.join(dir, 'state-snapshots');
		const left = fs.existsSync(snaps) ? fs.readdirSync(snaps).filter(n => !n.endsWith('.jsonl')) : [];
		expect(left, 'no partial snapshot left behind').toEqual([]);
		expect(
			fs.readdirSync(dir).filter(n => !listing.includes(n) && n !== 'state-snapshots'),
			'no new files left behind (lock, empty audit trail)',
		).toEqual([]);
		fs.rmSync(path.join(dir, 'filler'));
		expect(rows(dbPath)).toEqual(before);
	});

	it('permission denied (the store owned by another user, run as nobody)', () => {
		const {dir, dbPath} = buildScenario(scenario('R1'), 'v30', {dir: temp('perm')});
		fs.chmodSync(dir, 0o755);
		fs.chmodSync(dbPath, 0o644);
		const before = evidenceState(dir);
		const asRoot = process.getuid?.() === 0;
		// As root, permissions do not apply to us: run the binary as nobody instead.
		if (!asRoot) {
			fs.chmodSync(dir, 0o555);
		}

		const out = spawnSync(
			process.execPath,
			[path.join(ROOT, 'dist/hfx.js'), 'repair', '--db', dbPath, '--apply', '--yes'],
			asRoot ? {encoding: 'utf8', uid: 65_534, gid: 65_534, env: {...process.env, NO_COLOR: '1'}} : {encoding: 'utf8'},
		);
		fs.chmodSync(dir, 0o755);
		expect(out.status).toBe(2);
		expect(out.stderr).toContain(dbPath);
		expect(out.stderr).toMatch(/cannot be written|permission|EACCES/i);
		expect(evidenceState(dir)).toEqual(before);
	});
});

describe('undo', () => {
	it('restores the exact previous values, and refuses once a touched column changed', () => {
		const {dbPath, ids} = buildScenario(scenario('R1'), 'v30', {dir: temp('undo')});
		const original = rows(dbPath);
		const applied = hfxJson(['repair', '--db', dbPath, '--apply', '--yes']);
		expect(applied.json.result).toBe('applied');
		const entry = String(applied.json.audit.seq);
		const undo = hfxJson(['repair', '--db', dbPath, '--undo', entry, '--yes']);
		expect(undo.code).toBe(0);
		expect(rows(dbPath)).toEqual(original);
		// hfx audit show: the apply names its rows and the undo that reverted it; read-only.
		const trail = fs.readFileSync(auditPathFor(dbPath));
		const shown = hfxJson(['audit', 'show', '--db', dbPath]);
		expect(shown.code).toBe(0);
		const outcome = shown.json.entries.find((e: {seq: number}) => e.seq === applied.json.audit.seq);
		expect(outcome).toMatchObject({
			mode: 'apply',
			phase: 'outcome',
			result: 'applied',
			undoneBy: undo.json.audit.seq,
			planHash: applied.json.audit.planHash,
		});
		expect(outcome.planHash).toMatch(/^[0-9a-f]{64}$/);
		expect(outcome.rows.map((r: {sessionId: string}) => r.sessionId).sort()).toEqual([ids.orphan, ids.zombie].sort());
		expect(shown.json.entries.find((e: {seq: number}) => e.seq === undo.json.audit.seq)).toMatchObject({
			mode: 'undo',
			undoes: applied.json.audit.seq,
		});
		expect(fs.readFileSync(auditPathFor(dbPath))).toEqual(trail);
		// A second undo of the same entry is refused.
		expect(hfx(['repair', '--db', dbPath, '--undo', entry, '--yes']).code).toBe(2);
		// Apply again, then let the store move on: undo must refuse and leave it as it is.
		const again = hfxJson(['repair', '--db', dbPath, '--apply', '--yes']);
		execFileSync('sqlite3', [dbPath, `UPDATE sessions SET end_reason = 'session_reset' WHERE id = '${ids.zombie}'`]);
		const moved = rows(dbPath);
		const refused = hfx(['repair', '--db', dbPath, '--undo', String(again.json.audit.seq), '--yes']);
		expect(refused.code).toBe(2);
		expect(refused.stderr).toContain(`${ids.zombie}.end_reason changed since the repair`);
		expect(rows(dbPath)).toEqual(moved);
		expect(verifyAudit(auditPathFor(dbPath)).ok).toBe(true);
	});
});

describe('undo: the same guarded write as the apply', () => {
	it(
		'a bogus --undo ENTRY (without --yes, stdin not a terminal) names the ' +
			'missing entry and the trail, not a missing confirmation; nothing is written',
		() => {
			const {dir, dbPath} = buildScenario(scenario('R1'), 'v30', {dir: temp('bogus')});
			const listing = fs.readdirSync(dir).sort();
			const none = hfx(['repair', '--db', dbPath, '--undo', '99']);
			expect(none.code).toBe(2);
			expect(none.stderr.trim().split('\n')).toHaveLength(1);
			expect(none.stderr).toContain(`no audit entry 99 in ${auditPathFor(dbPath)}`);
			expect(none.stderr).toContain('hfx audit verify');
			expect(none.stderr).not.toContain('confirmation');
			expect(fs.readdirSync(dir).sort()).toEqual(listing);
			// With a trail: an unknown entry is still named as such, and recorded nowhere.
			expect(hfx(['repair', '--db', dbPath, '--apply', '--yes']).code).toBe(0);
			const trail = fs.readFileSync(auditPathFor(dbPath));
			const bogus = hfx(['repair', '--db', dbPath, '--undo', '7']);
			expect(bogus.code).toBe(2);
			expect(bogus.stderr).toContain(`no audit entry 7 in ${auditPathFor(dbPath)}`);
			expect(bogus.stderr).not.toContain('confirmation');
			expect(fs.readFileSync(auditPathFor(dbPath))).toEqual(trail);
			// A real entry without --yes on a pipe is what needs the confirmation.
			expect(hfx(['repair', '--db', dbPath, '--undo', '2']).stderr).toContain('a typed confirmation is needed');
		},
	);

	it(
		'Ctrl-C (SIGINT) during --undo waits for the write: it finishes, is ' +
			'recorded, then exits as applied (0, issue #29), never 130',
		async () => {
			const {dbPath} = buildScenario(scenario('R1'), 'v30', {dir: temp('undo-int')});
			const original = rows(dbPath);
			expect(hfx(['repair', '--db', dbPath, '--apply', '--yes']).code).toBe(0);
			const child = spawn(
				process.execPath,
				[path.join(ROOT, 'dist/hfx.js'), 'repair', '--db', dbPath, '--undo', '2', '--yes'],
				{
					env: {...process.env, NO_COLOR: '1', HFX_TEST_PAUSE_AT: 'after-intent', HFX_TEST_PAUSE_MS: '1500'},
					stdio: ['ignore', 'ignore', 'pipe'],
				},
			);
			const exit = new Promise<{code: number | null; signal: string | null}>(resolve =>
				child.once('exit', (code, signal) => resolve({code, signal})),
			);
			await new Promise<void>((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error('never paused')), 30_000);
				let err = '';
				child.stderr.on('data', (d: Buffer) => {
					err += d.toString();
					if (err.includes('paused at after-intent')) {
						clearTimeout(timer);
						resolve();
					}
				});
			});
			child.kill('SIGINT');
			expect(await exit).toEqual({code: 0, signal: null});
			expect(rows(dbPath)).toEqual(original);
			const trail = fs
				.readFileSync(auditPathFor(dbPath), 'utf8')
				.trimEnd()
				.split('\n')
				.map(l => JSON.parse(l));
			expect(trail.at(-1)).toMatchObject({mode: 'undo', phase: 'outcome', intent: 3, result: 'applied', undoes: 2});
			expect(trail.at(-1).preconditions.map((c: any) => c.id)).toEqual([
				'audit-writable',
				'no-holders',
				'no-deleted-wal',
				'snapshot',
			]);
			expect(verifyAudit(auditPathFor(dbPath)).ok).toBe(true);
		},
	);

	it(
		'a planted symlink as the audit trail or its head is refused in one ' +
			'line; its target and the store are untouched',
		() => {
			for (const planted of ['hfx-audit.jsonl', 'hfx-audit.head']) {
				const {dir, dbPath} = buildScenario(scenario('R1'), 'v30', {dir: temp(`link-${planted}`)});
				const victim = path.join(temp('victim'), 'shadow');
				fs.writeFileSync(victim, 'root:!:19000::::::\n');
				fs.symlinkSync(victim, path.join(dir, planted));
				const before = evidenceState(dir);
				for (const args of [
					['--apply', '--yes'],
					['--undo', '1', '--yes'],
				]) {
					const r = hfx(['repair', '--db', dbPath, ...args]);
					expect(r.code, `${planted} ${args.join(' ')}`).toBe(2);
					expect(r.stderr.trim().split('\n')).toHaveLength(1);
					expect(r.stderr).toContain(`${path.join(dir, planted)}: is a symbolic link`);
				}

				const audit = hfx(['audit', 'verify', '--db', dbPath]);
				expect(audit.code).toBe(2);
				expect(audit.stderr).toMatch(planted === 'hfx-audit.jsonl' ? /is a symbolic link/ : /no audit trail here/);
				expect(fs.readFileSync(victim, 'utf8')).toBe('root:!:19000::::::\n');
				expect(evidenceState(dir)).toEqual(before);
			}
		},
	);
});

describe('the audit trail', () => {
	it('a dry run writes nothing beside the store, not even an audit entry', () => {
		const {dir, dbPath} = buildScenario(scenario('R1'), 'v30', {dir: temp('dry')});
		const listing = fs.readdirSync(dir).sort();
		const text = hfx(['repair', '--db', dbPath]);
		const json = hfx(['repair', '--db', dbPath, '--json']);
		expect(text.code).toBe(0);
		expect(text.stdout).toContain('dry run: nothing is written');
		expect(JSON.parse(json.stdout)).not.toHaveProperty('auditEntry');
		expect(fs.readdirSync(dir).sort()).toEqual(listing);
	});

	it('records applies and undos in a hash chain that detects an edit, a removal and a cut', () => {
		const {dbPath} = buildScenario(scenario('R1'), 'v30', {dir: temp('audit')});
		hfx(['repair', '--db', dbPath]);
		const first = hfx(['repair', '--db', dbPath, '--apply', '--yes', '--json']);
		hfx(['repair', '--db', dbPath, '--undo', String(JSON.parse(first.stdout).audit.seq), '--yes']);
		hfx(['repair', '--db', dbPath, '--apply', '--yes']);
		const file = auditPathFor(dbPath);
		expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
		const ok = hfx(['audit', 'verify', '--db', dbPath]);
		expect(ok.code).toBe(0);
		// Each write is two entries: its intent before the transaction, its outcome after.
		expect(ok.stdout).toContain('6 entries, hash chain intact');
		const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
		const entries = lines.map(l => JSON.parse(l));
		expect(entries.map(e => `${e.mode}:${e.phase}`)).toEqual([
			'apply:intent',
			'apply:outcome',
			'undo:intent',
			'undo:outcome',
			'apply:intent',
			'apply:outcome',
		]);
		for (const e of entries) {
			expect(e).toHaveProperty('tool.version');
			expect(e).toHaveProperty('sqliteVersion');
			expect(e).toHaveProperty('argv');
		}

		expect(entries[0]).toHaveProperty('planHash');
		expect(entries[0].planHash).toBe(entries[1].planHash);
		// The intent carries the before-values of every column it is about to write; the outcome names it.
		expect(entries[0].changes).toEqual(entries[1].changes);
		expect(entries[1].intent).toBe(entries[0].seq);
		expect(entries[3].undoes).toBe(entries[1].seq);
		expect(entries[2].changes).toEqual(entries[3].changes);
		expect(entries[5].changes.length).toBeGreaterThan(0);
		expect(entries[5].preconditions.map((c: any) => c.id)).toEqual([
			'audit-writable',
			'no-holders',
			'no-deleted-wal',
			'snapshot',
			'plan-current',
		]);
		const restore = () => fs.writeFileSync(file, `${lines.join('\n')}\n`);
		const tamper = (mutated: string[]) => {
			fs.writeFileSync(file, `${mutated.join('\n')}\n`);
			const r = hfx(['audit', 'verify', '--db', dbPath]);
			restore();
			return r;
		};

		const edited = tamper([lines[0]!, lines[1]!, lines[2]!.replace('"undo"', '"apply"'), ...lines.slice(3)]);
		expect(edited.code).toBe(1);
		expect(edited.stdout).toContain('altered at line 4');
		expect(tamper([lines[0]!, ...lines.slice(2)]).stdout).toMatch(/altered at line 2: sequence 3/);
		expect(tamper(lines.slice(0, 4)).stdout).toMatch(/head file records 6 entries/);
		expect(tamper([...lines.slice(0, 5), lines[5]!.replace('"applied"', '"refused"')]).stdout).toMatch(
			/last one edited/,
		);
		expect(hfx(['audit', 'verify', '--db', dbPath]).code).toBe(0);
	});
});

describe('an interrupt during the apply', () => {
	async function startHeldApply(dbPath: string) {
		const child = spawn(
			process.execPath,
			[path.join(ROOT, 'dist/hfx.js'), 'repair', '--db', dbPath, '--apply', '--yes'],
			{
				env: {...process.env, NO_COLOR: '1', HFX_TEST_HOLD_IN_TRANSACTION_MS: '3000'},
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		let out = '';
		let err = '';
		child.stderr.on('data', (d: Buffer) => {
			err += d.toString();
		});
		await new Promise<void>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`never reached the transaction: ${out}`)), 30_000);
			child.stdout.on('data', (d: Buffer) => {
				out += d.toString();
				// Past this line the first UPDATE runs and the transaction is held open.
				if (out.includes('the store still matches the plan')) {
					clearTimeout(timer);
					setTimeout(resolve, 300);
				}
			});
		});
		const exit = new Promise<{code: number | null; signal: string | null}>(resolve =>
			child.once('exit', (code, signal) => resolve({code, signal})),
		);
		return {child, exit, output: () => out, errors: () => err};
	}

	it(
		'SIGKILL inside the write transaction leaves the store fully as before; ' + 'the next apply leaves it fully after',
		async () => {
			const {dbPath, ids} = buildScenario(scenario('R1'), 'v30', {dir: temp('int-kill')});
			const before = rows(dbPath);
			const run = await startHeldApply(dbPath);
			run.child.kill('SIGKILL');
			expect((await run.exit).signal).toBe('SIGKILL');
			expect(count(dbPath, 'PRAGMA integrity_check') as unknown).toBe('ok');
			expect(rows(dbPath)).toEqual(before);
			const second = hfxJson(['repair', '--db', dbPath, '--apply', '--yes']);
			expect(second.code).toBe(0);
			const after = rows(dbPath);
			expect(after.get(ids.orphan!)!.session_key).toBe(before.get(ids.zombie!)!.session_key);
			expect(after.get(ids.zombie!)!.end_reason).toBe('superseded_by_repair');
		},
	);

	it(
		'Ctrl-C (SIGINT) inside the write transaction lets it finish: fully ' +
			'after, verified and audited, then exits as applied (0, issue #29), ' +
			'never 130',
		async () => {
			const {dbPath, ids} = buildScenario(scenario('R1'), 'v30', {dir: temp('int-int')});
			const before = rows(dbPath);
			const run = await startHeldApply(dbPath);
			run.child.kill('SIGINT');
			// The signal lands while the transaction runs: the write is verified and recorded, and the exit says it applied.
			expect((await run.exit).code).toBe(0);
			expect(count(dbPath, 'PRAGMA integrity_check') as unknown).toBe('ok');
			const after = rows(dbPath);
			expect(after.get(ids.orphan!)!.session_key).toBe(before.get(ids.zombie!)!.session_key);
			expect(run.output()).toContain(`✓ ${ids.orphan} now owns`);
			const trail = fs
				.readFileSync(auditPathFor(dbPath), 'utf8')
				.trimEnd()
				.split('\n')
				.map(l => JSON.parse(l));
			expect(trail.at(-1)).toMatchObject({mode: 'apply', result: 'applied'});
		},
	);
});
