/**
 * `hfx diff A B` through the real binary (issue #24 point 4): two `hfx backup` archives taken
 * around a restart that a second process applies (the simulated #82616 incident: the gateway
 * resumes the zombie and writes new turns into it), a store against its quick snapshot, an
 * emergency snapshot and a retired-WAL capture as "before" images; every evidence byte unchanged.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {craftZip} from '../../backup/helpers.js';
import {T0} from '../../fixtures/scenarios.js';
import {hfx, hfxJson} from '../../helpers/cli.js';
import {folderHashes} from '../../helpers/folder-hashes.js';
import {type IncidentStore, SIM_KEY, SIM_OTHER_KEY, simulatedIncident, twoTurns} from '../../helpers/post-restart.js';
import {WriterProcess} from '../../helpers/writer.js';

const RESTART_AT = T0 + 3600 + 3 * 86_400;
const EMERGENCY = 'state.db.pre-update-emergency-2026-08-10T00-59-00-000000Z-4242.bak';
const CAPTURE = 'state.db.retired-wal-20260810-010000-4242';

let inc: IncidentStore;
let out: string;
let before: string;
let after: string;
let later: string;
let fresh: string;

async function inWriter(db: string, body: (w: WriterProcess) => Promise<void>): Promise<void> {
	const w = new WriterProcess(db);
	try {
		await w.started();
		await body(w);
		await w.send({op: 'close'});
	} finally {
		await w.kill();
	}
}

function backup(file: string): void {
	const r = hfx(['backup', '--home', inc.home, '-o', file]);
	expect(r.code, r.stderr).toBe(0);
}

/**
 * A retired-WAL capture as Hermes leaves it (§2.3): the main image as it was, and a -wal holding one more committed
 * turn of the orphan.
 */
function retiredCapture(image: string, dir: string, orphan: string): void {
	const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-diff-test-capture-'));
	try {
		const db = path.join(scratch, 'state.db');
		fs.copyFileSync(image, db);
		const w = new Database(db);
		w.pragma('journal_mode = WAL');
		w.close();
		fs.mkdirSync(dir);
		fs.copyFileSync(db, path.join(dir, 'state.db'));
		const again = new Database(db);
		again.pragma('wal_autocheckpoint = 0');
		again
			.prepare(
				'INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ' +
					"'user', 'a turn the halted process committed', ?)",
			)
			.run(orphan, T0 + 3700);
		fs.copyFileSync(`${db}-wal`, path.join(dir, 'state.db-wal'));
		again.close();
		fs.writeFileSync(
			path.join(dir, 'manifest.json'),
			JSON.stringify({version: 1, trigger: 'DeletedWalGenerationError', pid: 4242}),
		);
	} finally {
		fs.rmSync(scratch, {recursive: true, force: true});
	}
}

beforeAll(async () => {
	out = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-diff-test-'));
	inc = await simulatedIncident({restarted: false});
	before = path.join(out, 'before.zip');
	after = path.join(out, 'after.zip');
	backup(before);
	// A quick snapshot of the moment before the restart, in the home's own state-snapshots/.
	expect(hfx(['backup', '--quick', '--home', inc.home, '--label', 'before']).code).toBe(0);
	// The same moment as a pre-update emergency snapshot and a retired-WAL capture beside the store.
	const snaps = path.join(inc.home, 'state-snapshots');
	const image = path.join(snaps, fs.readdirSync(snaps)[0]!, 'state.db');
	fs.copyFileSync(image, path.join(inc.home, EMERGENCY));
	retiredCapture(image, path.join(inc.home, CAPTURE), inc.orphan);
	await inWriter(inc.db, async w => {
		await w.send({
			op: 'resume-after-restart',
			step: {sessionKey: SIM_KEY, resumedId: inc.zombie, restartAt: RESTART_AT, turns: twoTurns(RESTART_AT + 2)},
		});
	});
	backup(after);
	// A second restart a day later whose reset policy promotes the resumed row and mints a fresh one (§1.1 step 4).
	later = path.join(out, 'later.zip');
	await inWriter(inc.db, async w => {
		fresh = (
			await w.send({
				op: 'reset-promotion',
				step: {
					sessionKey: SIM_KEY,
					recoveredId: inc.zombie,
					restartAt: RESTART_AT + 86_400,
					turns: twoTurns(RESTART_AT + 86_402),
				},
			})
		).id as string;
	});
	backup(later);
}, 120_000);

afterAll(() => {
	inc?.remove();
	fs.rmSync(out, {recursive: true, force: true});
});

describe('hfx diff', () => {
	it('of two hfx backup archives around a restart names the rolled-back chat and where its newest message went', () => {
		const text = hfx(['diff', before, after]);
		expect(text.code, text.stderr).toBe(1);
		expect(text.stderr).toBe('');
		expect(text.stdout).toContain('A rollback happened between A and B');
		expect(text.stdout).toContain(`✗ ROLLED BACK  ${SIM_KEY}`);
		expect(text.stdout).toMatch(new RegExp(`✗ ${SIM_KEY}\\n    rolled back, newest message moved`));
		expect(text.stdout).toContain(`newest message in  A ${inc.orphan}`);
		expect(text.stdout).toContain(`                       B ${inc.zombie}`);
		expect(text.stdout).toContain(`messages 10 → 14 (+4)`);
		expect(text.stdout).not.toContain(`✗ ${SIM_OTHER_KEY}`);

		const {code, json} = hfxJson(['diff', before, after]);
		expect(code).toBe(1);
		expect(json.a.kind).toBe('archive');
		expect(json.b.member).toBe('state.db');
		expect(json.summary.rolledBackBetween).toEqual([SIM_KEY]);
		expect(json.rollbacks.inBOnly[0].resumedId).toBe(inc.zombie);
		expect(json.rollbacks.inBOnly[0].skipped.id).toBe(inc.orphan);
		const chat = json.chats.find((c: {sessionKey: string}) => c.sessionKey === SIM_KEY);
		expect(chat.a.newestIn).toBe(inc.orphan);
		expect(chat.b.newestIn).toBe(inc.zombie);
		expect(chat.a.rollbackRisk).toBe(true);
		const zombie = json.sessions.changed.find((s: {id: string}) => s.id === inc.zombie);
		expect(zombie.messages).toEqual({a: 10, b: 14});
		// The restart rewrote the whole scope (§1.1 step 6): both entries re-stamped, none repointed.
		expect(json.routing.map((m: {sessionKey: string; kind: string}) => `${m.kind} ${m.sessionKey}`).sort()).toEqual([
			`restamped ${SIM_OTHER_KEY}`,
			`restamped ${SIM_KEY}`,
		]);
	});

	it('around a restart that minted a fresh row names the chat whose restart target changed', () => {
		const text = hfx(['diff', after, later]);
		expect(text.code, text.stderr).toBe(1);
		expect(text.stdout).toMatch(new RegExp(`✗ ${SIM_KEY}\\n    restart target changed`));
		expect(text.stdout).toContain(`restart resumes    A ${inc.zombie}`);
		expect(text.stdout).toContain(`                       B ${fresh}`);
		const {json} = hfxJson(['diff', after, later]);
		expect(json.summary.restartTargetChanged).toEqual([SIM_KEY]);
		expect(json.sessions.added.map((x: {id: string}) => x.id)).toEqual([fresh]);
		const zombie = json.sessions.changed.find((x: {id: string}) => x.id === inc.zombie);
		expect(zombie.ended).toMatchObject({a: null, reasonA: null, reasonB: 'idle'});
		expect(json.routing.find((m: {sessionKey: string}) => m.sessionKey === SIM_KEY)).toMatchObject({
			kind: 'repointed',
			a: {sessionId: inc.zombie},
			b: {sessionId: fresh},
		});
		for (const line of text.stdout.split('\n')) {
			expect(line.length, line).toBeLessThanOrEqual(80);
		}
	});

	it('the other way round says the rollback is in A only, and nothing rolled back between', () => {
		const {code, json} = hfxJson(['diff', after, before]);
		expect(code).toBe(0);
		expect(json.summary.rolledBackBetween).toEqual([]);
		expect(json.rollbacks.inAOnly.map((r: {sessionKey: string}) => r.sessionKey)).toEqual([SIM_KEY]);
	});

	it('of the live store against its quick snapshot, leaving every byte of the home as it was', () => {
		const snaps = path.join(inc.home, 'state-snapshots');
		const snapshot = path.join(snaps, fs.readdirSync(snaps).find(n => n.includes('before'))!);
		const evidence = folderHashes(inc.home);
		const {code, json, stderr} = hfxJson(['diff', snapshot, inc.home]);
		expect(code, stderr).toBe(1);
		expect(json.a.kind).toBe('quick-snapshot');
		expect(json.b.kind).toBe('store');
		expect(json.summary.rolledBackBetween).toEqual([SIM_KEY]);
		expect(folderHashes(inc.home)).toEqual(evidence);
		expect(
			fs.readdirSync(os.tmpdir()).filter(n => n.startsWith(`hfx-diff-`) && !n.startsWith('hfx-diff-test-')),
		).toEqual([]);
	});

	it(
		'of a pre-update emergency snapshot and of a retired-WAL capture against ' + 'the live store, from private copies',
		() => {
			const evidence = folderHashes(inc.home);
			const emergency = hfxJson(['diff', path.join(inc.home, EMERGENCY), inc.home]);
			expect(emergency.code, emergency.stderr).toBe(1);
			expect(emergency.json.a).toMatchObject({
				kind: 'emergency-snapshot',
				routingScope: `${fs.realpathSync(inc.home)}/sessions`,
			});
			expect(emergency.json.summary.rolledBackBetween).toEqual([SIM_KEY]);
			const capture = hfxJson(['diff', path.join(inc.home, CAPTURE), inc.db]);
			expect(capture.code, capture.stderr).toBe(1);
			expect(capture.json.a.kind).toBe('retired-capture');
			// The capture's -wal holds one committed turn of the orphan that the live store never got.
			const orphan = capture.json.sessions.changed.find((x: {id: string}) => x.id === inc.orphan);
			expect(orphan.messages).toEqual({a: 21, b: 20});
			expect(folderHashes(inc.home)).toEqual(evidence);
		},
	);

	it(
		"reads a tar.gz of a volume through restore's reader (its -wal folded " +
			'into the private copy) and a Hermes zip with its .hermes/ prefix',
		() => {
			const capture = path.join(inc.home, CAPTURE);
			const tgz = path.join(out, 'volume.tar.gz');
			expect(spawnSync('tar', ['czf', tgz, '-C', capture, 'state.db', 'state.db-wal']).status).toBe(0);
			const fromTar = hfxJson(['diff', tgz, inc.home]);
			expect(fromTar.code, fromTar.stderr).toBe(1);
			expect(fromTar.json.a).toMatchObject({kind: 'archive', member: 'state.db'});
			expect(fromTar.json.sessions.changed.find((x: {id: string}) => x.id === inc.orphan).messages).toEqual({
				a: 21,
				b: 20,
			});
			const zip = path.join(out, 'hermes-backup.zip');
			fs.writeFileSync(
				zip,
				craftZip([
					{name: '.hermes/config.yaml', data: Buffer.from('model: x\n')},
					{name: '.hermes/state.db', data: fs.readFileSync(path.join(inc.home, EMERGENCY))},
				]),
			);
			const fromZip = hfxJson(['diff', zip, tgz]);
			expect(fromZip.code, fromZip.stderr).toBe(0);
			expect(fromZip.json.a).toMatchObject({kind: 'archive', member: '.hermes/state.db'});
			expect(fromZip.json.sessions.changed.map((x: {id: string; messages: unknown}) => [x.id, x.messages])).toEqual([
				[inc.orphan, {a: 20, b: 21}],
			]);
		},
	);

	describe('refuses in one line, exit 2, writing nothing', () => {
		const refusal = (args: string[], kind: string, file: string) => {
			const r = hfx(['diff', ...args]);
			expect(r.code, r.stdout).toBe(2);
			expect(r.stdout).toBe('');
			expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
			expect(r.stderr).toContain(file);
			expect(r.stderr).toMatch(/Next: /);
			expect(hfxJson(['diff', ...args]).json.error.kind).toBe(kind);
		};

		it('a damaged archive', () => {
			const bad = path.join(out, 'damaged.zip');
			const bytes = fs.readFileSync(after);
			bytes.fill(0x55, Math.floor(bytes.length / 3), Math.floor(bytes.length / 3) + 4096);
			fs.writeFileSync(bad, bytes);
			refusal([bad, inc.home], 'archive-damaged', bad);
		});

		it('two paths to the same store (a home and its state.db)', () => {
			refusal([inc.home, inc.db], 'same-store', inc.db);
		});

		it('a file that is neither a SQLite database nor an archive', () => {
			const notes = path.join(out, 'notes.txt');
			fs.writeFileSync(notes, 'not a store\n'.repeat(100));
			refusal([notes, inc.home], 'unsupported', notes);
		});

		it("a retired-WAL capture that kept only the main file's header", () => {
			const dir = path.join(out, 'state.db.retired-wal-20260810-020000-4243');
			fs.mkdirSync(dir);
			fs.writeFileSync(path.join(dir, 'state.db.header'), Buffer.alloc(100));
			fs.writeFileSync(path.join(dir, 'state.db-wal'), Buffer.alloc(32));
			refusal([dir, inc.home], 'no-main-image', dir);
		});
	});

	it("gives a restore's dry run its per-chat lines: what a restart resumes now and after the restore", () => {
		const evidence = folderHashes(inc.home);
		const {code, json, stderr} = hfxJson(['restore', before, '--home', inc.home, '--dry-run']);
		expect(code, stderr).toBe(1);
		const chat = json.chats.diff.find((c: {sessionKey: string}) => c.sessionKey === SIM_KEY);
		expect(chat).toMatchObject({
			changed: true,
			targetChanged: true,
			a: {restartResumes: fresh},
			b: {restartResumes: inc.zombie, newestIn: inc.orphan},
		});
		const text = hfx(['restore', before, '--home', inc.home, '--dry-run']);
		expect(text.stdout).toContain('per chat, A the live store now and B after the restore (1 of 2 chats change):');
		expect(text.stdout).toContain(`\n  ✗ ${SIM_KEY}\n`);
		expect(text.stdout).toContain(`      restart resumes    A ${fresh}\n                         B ${inc.zombie}`);
		expect(text.stdout.trim().split('\n').at(-1)).toMatch(/^Next: /);
		expect(folderHashes(inc.home)).toEqual(evidence);
	});
});
