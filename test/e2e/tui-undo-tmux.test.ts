/**
 * Undo in the TUI (issue #28 point 7), on the real binary at 80x24, on stores a second process
 * wrote: `u` on the repair just applied (Findings) and `u` in Findings over the audit trail's
 * applied repairs (one applied by the CLI) preview the columns put back with the live checklist,
 * ask the typed confirmation (a wrong answer writes nothing), then undo through the CLI's guarded
 * write (the audit trail gets the undo entry); an undo of cells changed since the repair is
 * refused with 0 bytes of the store changed. And a store held by an hfx live view: the CLI's
 * `repair --undo` names the hfx live view and its pid, never the gateway.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {hfx} from '../helpers/cli.js';
import {killSession, screenOf, tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {ROOT, WriterProcess} from '../helpers/writer.js';
import {findHolders} from '../../source/store/files/holders.js';

let writer: WriterProcess | undefined;
const terminal = tmuxTestFile('undo', async () => {
	await writer?.kill();
	writer = undefined;
});
const {session} = terminal;
const keys = (...k: string[]) => tmux('send-keys', '-t', session, ...k);
const waitFor = async (pattern: RegExp, timeoutMs?: number): Promise<string> =>
	waitForScreenOf(session, pattern, timeoutMs);

/**
 * An adoptable orphan in a store a second process wrote, then stopped cleanly (no -wal left; the live view reads a
 * stopped WAL store in place as an immutable file, a rollback-journal store in place with a connection per read).
 */
async function orphanStore(
	name: string,
	chat: string,
	journal: 'wal' | 'delete' = 'wal',
): Promise<{db: string; orphan: string; donor: string; key: string}> {
	const dir = path.join(terminal.dir, name);
	fs.mkdirSync(dir);
	const db = path.join(dir, 'state.db');
	writer = new WriterProcess(db, {journal});
	await writer.started();
	const key = `agent:main:telegram:dm:${chat}`;
	const donor = await writer.create({
		source: 'telegram',
		userId: 'u-op',
		sessionKey: key,
		chatId: chat,
		chatType: 'dm',
		displayName: 'Operator',
		startedAt: T0,
	});
	await writer.send({op: 'conversation', id: donor, count: 12, from: T0 + 5, to: T0 + 600});
	const orphan = await writer.create({source: 'telegram', startedAt: T0 + 660});
	await writer.send({op: 'conversation', id: orphan, count: 30, from: T0 + 670, to: T0 + 5000});
	await writer.send({op: 'close'}).catch(() => ({}));
	writer = undefined;
	return {db, orphan, donor, key};
}

function keyOf(db: string, id: string): unknown {
	const check = new Database(db, {readonly: true});
	try {
		return check.prepare('SELECT session_key FROM sessions WHERE id = ?').pluck().get(id);
	} finally {
		check.close();
	}
}

function trail(db: string): Array<Record<string, unknown>> {
	return fs
		.readFileSync(path.join(path.dirname(db), 'hfx-audit.jsonl'), 'utf8')
		.split('\n')
		.filter(Boolean)
		.map(l => JSON.parse(l) as Record<string, unknown>);
}

const sha = (file: string): string | null =>
	fs.existsSync(file) ? crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex') : null;
const storeBytes = (db: string) => ({db: sha(db), wal: sha(`${db}-wal`), shm: sha(`${db}-shm`)});

describe('undo in the TUI', () => {
	it(
		'u on the repair just applied: preview, checklist, typed confirmation (a ' +
			'wrong one writes nothing), undone and audited',
		async () => {
			// Rollback journal: the live view reads it in place, its own connection open during each read.
			const {db, orphan, key} = await orphanStore('just-applied', '717171', 'delete');
			terminal.start(80, 24, `--db ${db}`);
			await waitFor(/\[1 ?Sessions]/);
			keys('5');
			await waitFor(/\[5 ?Findings/);
			keys('r');
			await waitFor(/a apply {2}Esc back/, 20_000);
			keys('a');
			await waitFor(/to adopt, type its random suffix/);
			keys('-l', orphan.split('_').at(-1)!);
			keys('Enter');
			const applied = await waitFor(/applied · undo available: hfx repair --undo (\d+)/, 20_000);
			const seq = Number(/--undo (\d+)/.exec(applied)![1]);
			expect(applied).toMatch(/u undo/);
			expect(keyOf(db, orphan)).toBe(key);

			keys('u');
			const preview = await waitFor(new RegExp(`Undo repair entry ${seq} · preview`));
			expect(preview).toMatch(/puts back \d+ columns \(refused if any changed since the repair\)/);
			expect(preview).toContain(`session_key: ${key} → NULL`);
			await waitFor(/✓ no other process holds state\.db/);
			// A wrong answer writes nothing.
			const before = storeBytes(db);
			const entries = trail(db).length;
			keys('u');
			await waitFor(new RegExp(`to undo entry ${seq}, type undo:`));
			keys('-l', 'nope');
			keys('Enter');
			await waitFor(/the confirmation did not match: nothing was written/);
			expect(storeBytes(db)).toEqual(before);
			expect(trail(db)).toHaveLength(entries);

			keys('u');
			await waitFor(/type undo:/);
			keys('-l', 'undo');
			keys('Enter');
			const done = await waitFor(new RegExp(`Undo of entry ${seq} applied · audit entry \\d+`), 20_000);
			expect(done).toMatch(/✓ entry \d+ undone: \d+ columns put back/);
			expect(keyOf(db, orphan)).toBeNull();
			const undo = trail(db).at(-1)!;
			expect(undo).toMatchObject({mode: 'undo', result: 'applied', undoes: seq, phase: 'outcome'});
			expect(fs.readdirSync(path.join(path.dirname(db), 'state-snapshots')).some(n => n.endsWith('pre-undo'))).toBe(
				true,
			);
			// The orphan is back in Findings, and the trail has nothing left to undo.
			keys('Escape');
			await waitFor(/\[5 ?Findings\(\d+\)]/);
			keys('u');
			await waitFor(/no applied repair in the audit trail/);
			keys('Escape');
			await waitFor(/q quit/);
			keys('q');
			await waitFor(/EXIT=0/);
		},
	);

	it(
		"u in Findings lists the audit trail's applied repairs (one by the CLI); " +
			'cells changed since are refused with 0 bytes changed',
		async () => {
			const {db, orphan, key} = await orphanStore('changed-since', '727272');
			const apply = hfx(['repair', '--db', db, '--apply', '--yes']);
			expect(apply.code, apply.stdout + apply.stderr).toBe(0);
			const seq = Number(/--undo (\d+)/.exec(apply.stdout)![1]);
			// A second process changes a cell the repair wrote, then stops.
			writer = new WriterProcess(db);
			await writer.started();
			await writer.send({op: 'exec', sql: `UPDATE sessions SET display_name = 'Renamed' WHERE id = '${orphan}'`});
			await writer.send({op: 'close'}).catch(() => ({}));
			writer = undefined;

			terminal.start(80, 24, `--db ${db}`);
			await waitFor(/\[1 ?Sessions]/);
			keys('5');
			await waitFor(/\[5 ?Findings/);
			keys('u');
			const listed = await waitFor(
				new RegExp(`the audit trail: one applied repair can be undone[\\s\\S]*› entry ${seq} · .* adopted ${orphan}`),
			);
			expect(listed).toContain(`Undo repair entry ${seq} · preview`);
			await waitFor(/✓ no other process holds state\.db/);
			const before = storeBytes(db);
			keys('u');
			await waitFor(/type undo:/);
			keys('-l', 'undo');
			keys('Enter');
			const refused = await waitFor(/not applied \(nothing was written\)/, 20_000);
			expect(refused).toMatch(/✗ .*display_name changed since the repair/);
			expect(storeBytes(db)).toEqual(before);
			expect(keyOf(db, orphan)).toBe(key);
			expect(trail(db).at(-1)).toMatchObject({mode: 'undo', result: 'refused', undoes: seq});
			keys('Escape');
			await waitFor(/q quit/);
			keys('q');
			await waitFor(/EXIT=0/);
		},
	);

	it(
		'hfx repair --undo while an hfx live view reads the store: refused ' +
			'naming the hfx live view and its pid, never the gateway, 0 bytes changed',
		async () => {
			// Rollback journal: the live view reads it in place, a connection open for each read.
			const {db} = await orphanStore('held-by-tui', '737373', 'delete');
			const apply = hfx(['repair', '--db', db, '--apply', '--yes']);
			expect(apply.code, apply.stdout + apply.stderr).toBe(0);
			const seq = /--undo (\d+)/.exec(apply.stdout)![1]!;
			// The live view stopped inside one of its reads (the store open), as a read of a large store lasts.
			terminal.start(80, 24, `--db ${db}`, {
				NO_COLOR: '1',
				FORCE_COLOR: '0',
				HFX_TEST_PAUSE_AT: 'live-read',
				HFX_TEST_PAUSE_MS: '20000',
			});
			await waitFor(/\[1 ?Sessions]/, 30_000);
			// C-l: the live view re-reads the store now, and stops inside that read.
			keys('C-l');
			let holder: number | undefined;
			for (let i = 0; i < 100 && holder === undefined; i++) {
				holder = findHolders(db).holders.find(h => h.cmdline.includes('dist/hfx.js'))?.pid;
				await new Promise(resolve => setTimeout(resolve, 100));
			}

			expect(holder).toBeDefined();
			const before = storeBytes(db);
			const r = hfx(['repair', '--db', db, '--undo', seq, '--yes']);
			expect(r.code, r.stdout + r.stderr).toBe(2);
			const out = r.stdout + r.stderr;
			expect(out).toContain(`pid ${holder} (hfx live view: `);
			expect(out).toMatch(new RegExp(`quit hfx \\(pid ${holder}: the hfx live view, with q\\)`));
			expect(out).not.toMatch(/gateway/);
			expect(storeBytes(db)).toEqual(before);
			expect(trail(db).some(e => e.mode === 'undo')).toBe(false);
			expect(screenOf(session)).toBeDefined();
		},
	);

	it(
		"the TUI's undo while a second hfx live view reads the store: its " +
			'checklist names that live view and its pid, never the gateway; undo ' +
			'stays disabled until it lets go',
		async () => {
			const {db} = await orphanStore('held-by-second-tui', '747474', 'delete');
			const apply = hfx(['repair', '--db', db, '--apply', '--yes']);
			expect(apply.code, apply.stdout + apply.stderr).toBe(0);
			terminal.start(80, 24, `--db ${db}`);
			await waitFor(/\[1 ?Sessions]/);
			keys('5');
			await waitFor(/\[5 ?Findings/);
			keys('u');
			await waitFor(/✓ no other process holds state\.db/);
			// A second live view, stopped inside one of its reads (C-l) for 8 s.
			const second = `${session}-second`;
			tmux(
				'new-session',
				'-d',
				'-s',
				second,
				'-x',
				'80',
				'-y',
				'24',
				// As the terminal helper starts hfx: with CI=true (CI's own environment) Ink draws no frame until exit.
				'-e',
				'CI=false',
				'-e',
				'HFX_TEST_PAUSE_AT=live-read',
				'-e',
				'HFX_TEST_PAUSE_MS=8000',
				`'${process.execPath}' ${path.join(ROOT, 'dist/hfx.js')} --db ${db}; sleep 60`,
			);
			try {
				await waitForScreenOf(second, /\[1 ?Sessions]/);
				tmux('send-keys', '-t', second, 'C-l');
				const held = await waitFor(/✗ no other process holds state\.db/);
				const pid = /pid (\d+) \(hfx live view: /.exec(held.replace(/\n\s*/g, ' '))?.[1];
				expect(pid, held).toBeDefined();
				expect(held.replace(/\n\s*/g, ' ')).toContain(`quit hfx (pid ${pid}: the hfx live view, with q)`);
				expect(held).not.toMatch(/gateway/);
				expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain('dist/hfx.js');
				keys('u');
				await waitFor(/undo is disabled until every precondition holds/);
				// Its read over, it holds nothing: the checklist turns green.
				await waitFor(/✓ no other process holds state\.db/, 20_000);
			} finally {
				killSession(second);
			}

			expect(trail(db).some(e => e.mode === 'undo')).toBe(false);
		},
	);
});
