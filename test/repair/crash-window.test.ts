/**
 * The repair's crash windows, with the real binary and a real SIGKILL at named points
 * (HFX_TEST_PAUSE_AT, source/ground/test-pause.ts): between the intent and the transaction, and between
 * the COMMIT and the outcome, for --apply and --undo. The next run reconciles the intent against
 * the store, keeps the hash chain valid, and an applied repair stays undoable. Reading for the
 * reconciliation changes no byte of the store's files.
 */
import {spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {auditPathFor, readAudit, verifyAudit} from '../../source/store/audit-trail.js';
import {evidenceState, hfx, hfxJson} from '../helpers/cli.js';
import {sessionRows} from '../helpers/session-rows.js';
import {ROOT} from '../helpers/writer.js';
import {SCENARIOS, buildScenario} from '../fixtures/scenarios.js';

const dirs: string[] = [];
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function temp(tag: string): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-crash-${tag}-`));
	dirs.push(d);
	return d;
}

const rows = sessionRows;

const R1 = SCENARIOS.find(s => s.id === 'R1')!;

/** Runs hfx until it announces the pause point, SIGKILLs it there, and waits for it to die (bounded). */
async function killAt(point: string, args: string[]): Promise<void> {
	const child = spawn(process.execPath, [path.join(ROOT, 'dist/hfx.js'), ...args], {
		env: {...process.env, NO_COLOR: '1', HFX_TEST_PAUSE_AT: point, HFX_TEST_PAUSE_MS: '20000'},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let err = '';
	let out = '';
	child.stdout.on('data', (d: Buffer) => {
		out += d.toString();
	});
	const exited = new Promise<string | null>(resolve => child.once('exit', (_code, signal) => resolve(signal)));
	await new Promise<void>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`never paused at ${point}: ${out}\n${err}`)), 30_000);
		child.stderr.on('data', (d: Buffer) => {
			err += d.toString();
			if (err.includes(`hfx-test: paused at ${point}`)) {
				clearTimeout(timer);
				resolve();
			}
		});
		child.once('exit', () => reject(new Error(`exited before ${point}: ${out}\n${err}`)));
	});
	child.kill('SIGKILL');
	expect(await exited).toBe('SIGKILL');
}

/** The store's own files (state.db, -wal, -shm), by sha256: what a reconciling read must not change. */
function storeBytes(dir: string) {
	const {db, wal, shm} = evidenceState(dir);
	return {db, wal, shm};
}

describe('kill -9 between the COMMIT and the outcome of --apply', () => {
	it(
		'leaves an intent; the next hfx audit verify records "applied ' +
			'(reconciled)" without changing a byte of the store; undo then works',
		async () => {
			const dir = temp('commit');
			const {dbPath, ids} = buildScenario(R1, 'v30', {dir});
			const original = rows(dbPath);
			await killAt('after-commit', ['repair', '--db', dbPath, '--apply', '--yes']);
			// Committed: the orphan carries the key. The trail holds the intent and nothing after it.
			expect(rows(dbPath).get(ids.orphan!)!.session_key).toBe(original.get(ids.zombie!)!.session_key);
			const trail = readAudit(auditPathFor(dbPath));
			expect(trail.map(e => `${e.mode}:${String(e.phase)}`)).toEqual(['apply:intent']);
			expect((trail[0]!.changes as Array<{before: unknown}>).length).toBeGreaterThan(0);

			// A head temp a run killed between its write and its rename would leave (pid dead): swept on the next append.
			const deadPid = spawnSync('true').pid!;
			const headTemp = path.join(dir, `hfx-audit.head.tmp-${deadPid}`);
			fs.writeFileSync(headTemp, '{}\n');
			const before = storeBytes(dir);
			const audit = hfx(['audit', 'verify', '--db', dbPath]);
			expect(audit.code).toBe(0);
			expect(audit.stderr).toContain('entry 1: an interrupted apply');
			expect(audit.stderr).toContain('recorded as applied (reconciled) in entry 2 (undo with: hfx repair --undo 2');
			expect(audit.stdout).toContain('2 entries, hash chain intact');
			expect(storeBytes(dir)).toEqual(before);
			expect(fs.existsSync(headTemp)).toBe(false);
			const settled = readAudit(auditPathFor(dbPath))[1]!;
			expect(settled).toMatchObject({mode: 'apply', phase: 'outcome', intent: 1, reconciled: true, result: 'applied'});
			expect(settled.changes).toEqual(trail[0]!.changes);
			// Reconciled once: a second run adds nothing.
			expect(hfx(['audit', 'verify', '--db', dbPath]).stderr).not.toContain('interrupted');
			expect(readAudit(auditPathFor(dbPath))).toHaveLength(2);

			const undo = hfxJson(['repair', '--db', dbPath, '--undo', '2', '--yes']);
			expect(undo.code).toBe(0);
			expect(rows(dbPath)).toEqual(original);
			expect(verifyAudit(auditPathFor(dbPath)).ok).toBe(true);
		},
	);

	it(
		'the repair dry run reports the pending intent and writes nothing (no ' +
			'byte, no file); --apply reconciles it first',
		async () => {
			const dir = temp('dry');
			const {dbPath} = buildScenario(R1, 'v30', {dir});
			await killAt('after-commit', ['repair', '--db', dbPath, '--apply', '--yes']);
			const listing = fs.readdirSync(dir).sort();
			const trail = fs.readFileSync(auditPathFor(dbPath));
			const before = storeBytes(dir);
			const dry = hfx(['repair', '--db', dbPath]);
			expect(dry.stderr).toContain('awaits reconciliation: the store shows it applied');
			expect(fs.readdirSync(dir).sort()).toEqual(listing);
			expect(fs.readFileSync(auditPathFor(dbPath))).toEqual(trail);
			expect(storeBytes(dir)).toEqual(before);
			// --apply settles it (then has nothing left to adopt: the orphan already carries the key).
			const apply = hfx(['repair', '--db', dbPath, '--apply', '--yes']);
			expect(apply.stderr).toContain('recorded as applied (reconciled) in entry 2');
			expect(readAudit(auditPathFor(dbPath))[1]).toMatchObject({intent: 1, reconciled: true, result: 'applied'});
			expect(verifyAudit(auditPathFor(dbPath)).ok).toBe(true);
		},
	);

	it('an intent whose process still runs is not reconciled (it is not a crash yet)', async () => {
		const dir = temp('live');
		const {dbPath} = buildScenario(R1, 'v30', {dir});
		const child = spawn(
			process.execPath,
			[path.join(ROOT, 'dist/hfx.js'), 'repair', '--db', dbPath, '--apply', '--yes'],
			{
				env: {...process.env, NO_COLOR: '1', HFX_TEST_PAUSE_AT: 'after-commit', HFX_TEST_PAUSE_MS: '20000'},
				stdio: ['ignore', 'ignore', 'pipe'],
			},
		);
		const exited = new Promise(resolve => child.once('exit', resolve));
		try {
			await new Promise<void>((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error('never paused')), 30_000);
				let err = '';
				child.stderr.on('data', (d: Buffer) => {
					err += d.toString();
					if (err.includes('hfx-test: paused at after-commit')) {
						clearTimeout(timer);
						resolve();
					}
				});
			});
			const audit = hfx(['audit', 'verify', '--db', dbPath]);
			expect(audit.stderr).not.toContain('reconciled');
			expect(readAudit(auditPathFor(dbPath))).toHaveLength(1);
		} finally {
			child.kill('SIGKILL');
			await exited;
		}
	});

	it('a store that moved on since the killed commit is recorded as undetermined, and no undo is offered', async () => {
		const dir = temp('moved');
		const {dbPath, ids} = buildScenario(R1, 'v30', {dir});
		await killAt('after-commit', ['repair', '--db', dbPath, '--apply', '--yes']);
		spawnSync('sqlite3', [dbPath, `UPDATE sessions SET end_reason = 'session_reset' WHERE id = '${ids.zombie}'`]);
		const audit = hfx(['audit', 'verify', '--db', dbPath]);
		expect(audit.stderr).toContain('recorded as undetermined (reconciled) in entry 2');
		expect(audit.stderr).not.toContain('undo with');
		const undo = hfx(['repair', '--db', dbPath, '--undo', '2', '--yes']);
		expect(undo.code).toBe(2);
		expect(undo.stderr).toContain('only an applied repair can be undone');
	});
});

describe('kill -9 between the intent and the transaction of --apply', () => {
	it(
		'leaves the store byte for byte as it was; the next --apply records "not ' +
			'applied (reconciled)" and then applies',
		async () => {
			const dir = temp('intent');
			const {dbPath, ids} = buildScenario(R1, 'v30', {dir});
			const original = rows(dbPath);
			const before = storeBytes(dir);
			await killAt('after-intent', ['repair', '--db', dbPath, '--apply', '--yes']);
			expect(storeBytes(dir)).toEqual(before);
			const apply = hfxJson(['repair', '--db', dbPath, '--apply', '--yes']);
			expect(apply.stderr).toContain('recorded as not applied (reconciled) in entry 2');
			expect(apply.code).toBe(0);
			const trail = readAudit(auditPathFor(dbPath));
			expect(trail.map(e => `${e.mode}:${String(e.phase)}:${String(e.result ?? '')}`)).toEqual([
				'apply:intent:',
				'apply:outcome:not-applied',
				'apply:intent:',
				'apply:outcome:applied',
			]);
			expect(trail[1]!.changes).toEqual([]);
			expect(rows(dbPath).get(ids.orphan!)!.session_key).toBe(original.get(ids.zombie!)!.session_key);
			// The not-applied entry cannot be undone; the applied one can.
			expect(hfx(['repair', '--db', dbPath, '--undo', '2', '--yes']).code).toBe(2);
			expect(hfx(['repair', '--db', dbPath, '--undo', '4', '--yes']).code).toBe(0);
			expect(rows(dbPath)).toEqual(original);
			expect(verifyAudit(auditPathFor(dbPath)).ok).toBe(true);
		},
	);
});

describe('kill -9 between the COMMIT and the outcome of --undo', () => {
	it(
		'the next run records the undo as applied (reconciled): a second undo is ' +
			'refused as already undone, the store keeps the original values',
		async () => {
			const dir = temp('undo');
			const {dbPath} = buildScenario(R1, 'v30', {dir});
			const original = rows(dbPath);
			expect(hfx(['repair', '--db', dbPath, '--apply', '--yes']).code).toBe(0);
			await killAt('after-commit', ['repair', '--db', dbPath, '--undo', '2', '--yes']);
			expect(rows(dbPath)).toEqual(original);
			const again = hfx(['repair', '--db', dbPath, '--undo', '2', '--yes']);
			expect(again.stderr).toContain('an interrupted undo');
			expect(again.stderr).toContain('recorded as applied (reconciled) in entry 4');
			expect(again.code).toBe(2);
			expect(again.stderr).toContain('entry 2 was already undone by entry 4');
			expect(rows(dbPath)).toEqual(original);
			expect(readAudit(auditPathFor(dbPath))[3]).toMatchObject({
				mode: 'undo',
				undoes: 2,
				intent: 3,
				reconciled: true,
				result: 'applied',
			});
			expect(verifyAudit(auditPathFor(dbPath)).ok).toBe(true);
		},
	);
});
