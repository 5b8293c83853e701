/**
 * Quick snapshots: Hermes' layout and manifest, verified copies, newest 20 kept, failures
 * reported (never pruned over), one backup at a time. takeQuickSnapshot is the repair feature's
 * pre-write snapshot.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {processStartTicks} from '../../../source/ground/liveness.js';
import {LOCK_NAME} from '../../../source/backup/create/lock.js';
import {sanitizeLabel, takeQuickSnapshot} from '../../../source/backup/create/snapshot.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {ReadOnlyStore} from '../../../source/store/open/open.js';
import {cleanupTemps, dump, listing, makeHome} from '../helpers.js';

afterAll(cleanupTemps);

describe('takeQuickSnapshot', () => {
	it(
		"writes Hermes' layout: <UTC stamp>-<label>/, 0700/0600, manifest with " + "Hermes' fields and ours, verified",
		async () => {
			const home = makeHome('snap');
			const before = listing(home.root).filter(n => !n.startsWith('state-snapshots/'));
			const now = new Date(Date.UTC(2026, 10, 29, 8, 30, 5));
			const r = await takeQuickSnapshot({root: home.root, label: 'pre repair!', now: () => now});
			expect(r.verified).toBe(true);
			expect(r.exitCode).toBe(0);
			expect(r.id).toBe('20261129-083005-pre-repair');
			expect(r.dir).toBe(path.join(home.root, 'state-snapshots', r.id));
			expect(fs.statSync(r.dir).mode & 0o777).toBe(0o700);
			const files = listing(r.dir).filter(n => !n.endsWith('/'));
			expect(files).toEqual(['.env', 'auth.json', 'config.yaml', 'cron/jobs.json', 'manifest.json', 'state.db']);
			for (const f of files) {
				expect(fs.statSync(path.join(r.dir, f)).mode & 0o777, f).toBe(0o600);
			}

			const m = JSON.parse(fs.readFileSync(path.join(r.dir, 'manifest.json'), 'utf8'));
			expect(m).toMatchObject({
				id: r.id,
				timestamp: '20261129-083005',
				label: 'pre-repair',
				file_count: 5,
				failed_dbs: [],
				oversized_skipped: [],
			});
			expect(Object.keys(m.files).sort()).toEqual(['.env', 'auth.json', 'config.yaml', 'cron/jobs.json', 'state.db']);
			expect(m.total_size).toBe(Object.values(m.files as Record<string, number>).reduce((a, b) => a + b, 0));
			expect(m.hfx.databases[0]).toMatchObject({
				path: 'state.db',
				integrity: 'ok',
				restarts: 0,
				counts: {sessions: home.sessions, messages: home.messages},
			});
			expect(dump(path.join(r.dir, 'state.db'))).toBe(dump(home.db));
			// Nothing else was created in the root (the lock is gone again).
			expect(listing(home.root).filter(n => !n.startsWith('state-snapshots/'))).toEqual(before);
			expect(fs.existsSync(path.join(home.root, LOCK_NAME))).toBe(false);
		},
	);

	it("snapshots a profile home from its database path, into that profile's state-snapshots/", async () => {
		const home = makeHome('snap-profile');
		const r = await takeQuickSnapshot({dbPath: home.profileDb});
		expect(path.dirname(r.dir)).toBe(path.join(home.root, 'profiles/work/state-snapshots'));
		expect(r.verified).toBe(true);
		expect(r.manifest.hfx.databases[0]!.schemaVersion).toBe(21);
	});

	it("keeps the newest 20 (Hermes' own snapshots included)", async () => {
		const home = makeHome('snap-keep');
		let t = Date.UTC(2026, 10, 1, 0, 0, 0);
		for (let i = 0; i < 22; i++) {
			t += 60_000;
			const at = new Date(t);
			await takeQuickSnapshot({root: home.root, now: () => at});
		}

		const names = fs
			.readdirSync(path.join(home.root, 'state-snapshots'), {withFileTypes: true})
			.filter(d => d.isDirectory())
			.map(d => d.name)
			.sort();
		expect(names).toHaveLength(20);
		expect(names[0]).toBe('20261101-000300');
		expect(names.at(-1)).toBe('20261101-002200');
		expect(fs.existsSync(path.join(home.root, 'state-snapshots', 'hfx-records.jsonl'))).toBe(true);
	});

	it('reports a database that cannot be copied, is not verified, and prunes nothing', async () => {
		const home = makeHome('snap-fail');
		fs.writeFileSync(path.join(home.root, 'kanban.db'), 'this is not sqlite at all'.repeat(40));
		const r = await takeQuickSnapshot({root: home.root});
		expect(r.verified).toBe(false);
		expect(r.exitCode).toBe(1);
		expect(r.manifest.failed_dbs).toEqual(['kanban.db']);
		expect(r.problems[0]).toMatch(/^kanban\.db: not a SQLite database/);
		expect(r.pruned).toEqual([]);
	});

	it('refuses while another backup holds the lock (exit 2), and takes over a stale lock', async () => {
		const home = makeHome('snap-lock');
		const lock = path.join(home.root, LOCK_NAME);
		fs.writeFileSync(
			lock,
			JSON.stringify({
				pid: process.pid,
				startTicks: processStartTicks(process.pid),
				host: os.hostname(),
				started: '2026-11-29T00:00:00Z',
				what: 'hfx backup (test)',
			}),
		);
		const error = await takeQuickSnapshot({root: home.root}).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(FailClosed);
		expect((error as FailClosed).kind).toBe('backup-running');
		expect((error as FailClosed).exitCode).toBe(2);
		expect(fs.existsSync(path.join(home.root, 'state-snapshots'))).toBe(true);
		expect(fs.readdirSync(path.join(home.root, 'state-snapshots'))).toEqual(['20260101-000000']);
		// A lock whose process is gone (SIGKILL) is stale.
		fs.writeFileSync(
			lock,
			JSON.stringify({
				pid: 2 ** 22 + 17,
				startTicks: '1',
				host: os.hostname(),
				started: '2026-11-29T00:00:00Z',
				what: 'killed',
			}),
		);
		const r = await takeQuickSnapshot({root: home.root});
		expect(r.verified).toBe(true);
		expect(fs.existsSync(lock)).toBe(false);
	});

	it(
		'works in a process that holds a reader on the live store (the TUI), ' + 'which stays usable; no raw read of it',
		async () => {
			const home = makeHome('snap-held');
			// A live agent: its connection keeps -wal and -shm, so the TUI's reader opens the file in place.
			const agent = new Database(home.db);
			agent.pragma('journal_mode = wal');
			agent.exec('CREATE TABLE IF NOT EXISTS t (x)');
			const store = ReadOnlyStore.open(home.db);
			try {
				expect(store.isPrivateCopy).toBe(false);
				const r = await takeQuickSnapshot({root: home.root, label: 'from-tui'});
				expect(r.verified).toBe(true);
				expect(store.read(() => store.prepare('SELECT count(*) FROM messages').pluck().get())).toBe(home.messages);
				agent.exec('INSERT INTO t VALUES (1)');
				expect(store.read(() => store.prepare('SELECT count(*) FROM t').pluck().get())).toBe(1);
			} finally {
				store.close();
				agent.close();
			}

			expect(fs.existsSync(path.join(home.root, LOCK_NAME))).toBe(false);
		},
	);

	it('sanitizes labels', () => {
		expect(sanitizeLabel('pre repair / v2')).toBe('pre-repair-v2');
		expect(sanitizeLabel('../../etc')).toBe('etc');
		expect(sanitizeLabel('')).toBeNull();
	});
});
