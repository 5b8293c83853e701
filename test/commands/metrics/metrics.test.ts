/**
 * `hfx metrics` on real stores: the numbers are the scan's numbers (promtool checks the text in the
 * fleet tier, test/e2e/prometheus.test.ts), a store hfx cannot read is `hfx_store_up 0` with its reason kind (never a
 * gap),
 * labels carry no session id or key, the textfile is replaced atomically, and nothing is created
 * or changed beside any store.
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {evidenceState, hfx, hfxJson} from '../../helpers/cli.js';
import {parseExposition, sampleOf} from '../../helpers/prometheus.js';
import {ROOT, WriterProcess} from '../../helpers/writer.js';
import {T0} from '../../fixtures/scenarios.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-metrics-'));
const FIXTURE = path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db');
const writers: WriterProcess[] = [];
afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

/** A Hermes root: the incident fixture as the default profile and as `work`, and `broken`'s empty state.db. */
function fleetRoot(name: string): string {
	const root = path.join(dir, name);
	fs.mkdirSync(path.join(root, 'profiles', 'work'), {recursive: true});
	fs.mkdirSync(path.join(root, 'profiles', 'broken'), {recursive: true});
	fs.copyFileSync(FIXTURE, path.join(root, 'state.db'));
	fs.copyFileSync(FIXTURE, path.join(root, 'profiles', 'work', 'state.db'));
	fs.writeFileSync(path.join(root, 'profiles', 'broken', 'state.db'), '');
	return root;
}

const homes = (root: string) => [root, path.join(root, 'profiles', 'work'), path.join(root, 'profiles', 'broken')];

describe('hfx metrics', () => {
	it(
		"writes the scan's numbers per store, labelled by profile (schema and " +
			'rule set on hfx_store_info); an unreadable store is up 0 with its reason',
		() => {
			const root = fleetRoot('numbers');
			const before = homes(root).map(h => evidenceState(h));
			const out = path.join(dir, 'numbers-out');
			fs.mkdirSync(out);
			const r = hfx(['metrics', '--home', root, '--textfile', path.join(out, 'hfx.prom')]);
			expect(r.code).toBe(1);
			expect(r.stdout).toBe('');
			expect(r.stderr.trim().split('\n')).toEqual([
				expect.stringMatching(/^hfx: .*profiles\/broken\/state\.db: .*Next: /),
			]);
			expect(fs.readdirSync(out)).toEqual(['hfx.prom']);
			const text = fs.readFileSync(path.join(out, 'hfx.prom'), 'utf8');
			const samples = parseExposition(text);
			const scan = hfxJson(['scan', '--db', FIXTURE]).json;
			for (const profile of ['default', 'work']) {
				const where = {profile};
				expect(
					sampleOf(samples, 'hfx_store_info', {profile, schema: 'v21', rule_set: 'legacy-v21', build: 'unknown'}),
				).toBe(1);
				expect(sampleOf(samples, 'hfx_store_up', where)).toBe(1);
				expect(sampleOf(samples, 'hfx_sessions', where)).toBe(scan.summary.sessions);
				expect(sampleOf(samples, 'hfx_chats', where)).toBe(scan.summary.chats);
				expect(sampleOf(samples, 'hfx_rollback_risk_chats', where)).toBe(scan.summary.rollbackRisks);
				expect(sampleOf(samples, 'hfx_orphans', {...where, verdict: 'adoptable'})).toBe(scan.summary.adoptable);
				const refused = samples.filter(
					s => s.name === 'hfx_orphans' && s.labels.profile === profile && s.labels.verdict === 'refused',
				);
				expect(refused.reduce((a, s) => a + s.value, 0)).toBe(scan.summary.refused);
				expect(refused.map(s => s.labels.reason).sort()).toEqual(
					[
						...new Set(
							scan.orphans.filter((o: any) => o.verdict === 'refused').map((o: any) => o.reasonKind as string),
						),
					].sort(),
				);
				expect(sampleOf(samples, 'hfx_backup_verified_age_seconds', where)).toBe(Number.POSITIVE_INFINITY);
			}

			expect(sampleOf(samples, 'hfx_store_up', {profile: 'broken'})).toBe(0);
			expect(samples.find(s => s.name === 'hfx_store_up' && s.labels.profile === 'broken')!.labels).toEqual({
				profile: 'broken',
				reason: 'empty-file',
			});
			expect(
				sampleOf(samples, 'hfx_store_info', {
					profile: 'broken',
					schema: 'unknown',
					rule_set: 'unknown',
					build: 'unknown',
				}),
			).toBe(1);
			expect(sampleOf(samples, 'hfx_last_scan_timestamp_seconds', {profile: 'broken'})).toBeGreaterThan(
				Date.now() / 1000 - 60,
			);
			// Privacy and cardinality: no session id, chat key or title in any label (counts only).
			const ids = [...scan.orphans.map((o: any) => o.orphanId), ...scan.routing.map((c: any) => c.sessionKey)];
			expect(ids.length).toBeGreaterThan(5);
			expect(ids.filter(id => text.includes(id))).toEqual([]);
			// A private registry: none of prom-client's default process metrics.
			expect(new Set(samples.map(s => s.name.split('_')[0]))).toEqual(new Set(['hfx']));
			expect(new Set(samples.flatMap(s => Object.keys(s.labels)))).toEqual(
				new Set(['profile', 'schema', 'rule_set', 'build', 'reason', 'verdict', 'version']),
			);
			expect(homes(root).map(h => evidenceState(h))).toEqual(before);
		},
	);

	it(
		"names the Hermes build of hfx_store_info from the running gateway's " +
			'gateway_state.json, and only while that gateway runs',
		async () => {
			const root = fleetRoot('build');
			const gateway = spawn('sleep', ['60'], {stdio: 'ignore'});
			try {
				const stat = fs.readFileSync(`/proc/${gateway.pid}/stat`, 'utf8');
				const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
				const state = (pid: number, version: string) =>
					JSON.stringify({
						pid,
						start_time: ticks,
						gateway_state: 'running',
						code_version: version,
						code_sha: '10e7de79a9ab55e0c3b1d2f4a6e8c0b2d4f6a8c0',
					});
				fs.writeFileSync(path.join(root, 'gateway_state.json'), state(gateway.pid!, '0.21.4'));
				// work's file names a process that is not its gateway (another start): not trusted.
				fs.writeFileSync(path.join(root, 'profiles', 'work', 'gateway_state.json'), state(process.pid, '0.21.4'));
				const builds = () =>
					Object.fromEntries(
						parseExposition(hfx(['metrics', '--home', root]).stdout)
							.filter(x => x.name === 'hfx_store_info')
							.map(x => [x.labels.profile, x.labels.build]),
					);
				expect(builds()).toEqual({default: '0.21.4@10e7de79a9ab', work: 'unknown', broken: 'unknown'});
				// A version that is no plain version is not said (label values stay plain words).
				fs.writeFileSync(path.join(root, 'gateway_state.json'), state(gateway.pid!, '0.21"\n4'));
				expect(builds().default).toBe('@10e7de79a9ab');
			} finally {
				gateway.kill('SIGKILL');
			}
		},
	);

	it("prints the same exposition on stdout without --textfile, and names a fresh verified snapshot's age", () => {
		const root = fleetRoot('stdout');
		expect(hfx(['backup', '--quick', '--home', root, '--profile', 'work']).code).toBe(0);
		const r = hfx(['metrics', '--home', root]);
		expect(r.code).toBe(1);
		const samples = parseExposition(r.stdout);
		const age = sampleOf(samples, 'hfx_backup_verified_age_seconds', {profile: 'work'});
		expect(age).toBeGreaterThanOrEqual(0);
		expect(age).toBeLessThan(60);
		// The snapshot holds work's store only: the default profile still has none.
		expect(sampleOf(samples, 'hfx_backup_verified_age_seconds', {profile: 'default'})).toBe(Number.POSITIVE_INFINITY);
		expect(sampleOf(samples, 'hfx_backup_drilled_age_seconds', {profile: 'work'})).toBe(Number.POSITIVE_INFINITY);
	});

	it('replaces an existing textfile atomically (rename: a new inode, no temp file left)', () => {
		const root = fleetRoot('atomic');
		const out = path.join(dir, 'atomic-out');
		fs.mkdirSync(out);
		const file = path.join(out, 'hfx.prom');
		fs.writeFileSync(file, '# old\n');
		const inode = fs.statSync(file).ino;
		// A reader holding the old file keeps reading the old bytes: the new file is another inode.
		const held = fs.openSync(file, 'r');
		try {
			expect(hfx(['metrics', '--home', root, '--textfile', file]).code).toBe(1);
			expect(fs.statSync(file).ino).not.toBe(inode);
			expect(fs.readFileSync(held, 'utf8')).toBe('# old\n');
		} finally {
			fs.closeSync(held);
		}

		expect(fs.readFileSync(file, 'utf8')).toContain('hfx_store_up{');
		expect(fs.readdirSync(out)).toEqual(['hfx.prom']);
	});

	it(
		'refuses, writing nothing: a textfile beside a store, a name the ' +
			'collector ignores, a folder that does not exist',
		() => {
			const root = fleetRoot('refuse');
			const before = evidenceState(root);
			for (const [target, kind] of [
				[path.join(root, 'hfx.prom'), 'never creates files beside a store'],
				[path.join(dir, 'hfx.txt'), 'only files ending in .prom'],
				[path.join(dir, 'no-such-dir', 'hfx.prom'), 'could not write the metrics'],
			] as const) {
				const r = hfx(['metrics', '--home', root, '--textfile', target]);
				expect(r.code).toBe(2);
				expect(r.stdout).toBe('');
				const lines = r.stderr.trim().split('\n');
				expect(lines).toHaveLength(1);
				expect(lines[0]).toContain(target);
				expect(lines[0]).toContain(kind);
				expect(lines[0]).toContain('Next: ');
				expect(fs.existsSync(target)).toBe(false);
			}

			expect(evidenceState(root)).toEqual(before);
			expect(fs.readdirSync(dir).filter(n => n.includes('.tmp'))).toEqual([]);
		},
	);

	it('counts WAL frames hidden behind a checksum break, and processes holding a deleted -wal', async () => {
		const folder = path.join(dir, 'wal');
		fs.mkdirSync(folder);
		const db = path.join(folder, 'state.db');
		const w = new WriterProcess(db);
		writers.push(w);
		await w.started();
		const id = await w.create({
			source: 'telegram',
			userId: 'u',
			sessionKey: 'agent:main:telegram:dm:9',
			chatId: '9',
			chatType: 'dm',
			startedAt: T0,
		});
		for (let i = 0; i < 30; i++) {
			await w.send({op: 'conversation', id, count: 5, from: T0 + i * 100, to: T0 + i * 100 + 50});
		}

		await w.kill();
		const scan = hfxJson(['files', '--db', db]).json.wal;
		const k = Math.floor(scan.lastCommitFrame / 2);
		const fd = fs.openSync(`${db}-wal`, 'r+');
		const b = Buffer.alloc(1);
		const offset = 32 + (k - 1) * (24 + scan.pageSize) + 24 + 100;
		fs.readSync(fd, b, 0, 1, offset);
		b[0] = b[0]! ^ 0xff;
		fs.writeSync(fd, b, 0, 1, offset);
		fs.closeSync(fd);
		const before = evidenceState(folder);
		const hidden = parseExposition(hfx(['metrics', '--db', db]).stdout);
		const broken = hfxJson(['files', '--db', db]).json.wal;
		expect(sampleOf(hidden, 'hfx_wal_hidden_frames')).toBe(broken.invalidTailFrames);
		expect(sampleOf(hidden, 'hfx_wal_hidden_commits')).toBe(broken.invalidTailCommitFrames);
		expect(sampleOf(hidden, 'hfx_wal_hidden_commits')).toBeGreaterThan(0);
		expect(sampleOf(hidden, 'hfx_wal_bytes')).toBe(fs.statSync(`${db}-wal`).size);
		expect(evidenceState(folder)).toEqual(before);

		const holderDir = path.join(dir, 'held');
		fs.mkdirSync(holderDir);
		const heldDb = path.join(holderDir, 'state.db');
		const holder = new WriterProcess(heldDb);
		writers.push(holder);
		await holder.started();
		const hid = await holder.create({
			source: 'telegram',
			userId: 'u',
			sessionKey: 'agent:main:telegram:dm:9',
			chatId: '9',
			chatType: 'dm',
			startedAt: T0,
		});
		await holder.send({op: 'conversation', id: hid, count: 5, from: T0, to: T0 + 50});
		expect(sampleOf(parseExposition(hfx(['metrics', '--db', heldDb]).stdout), 'hfx_deleted_wal_holders')).toBe(0);
		fs.unlinkSync(`${heldDb}-wal`);
		expect(sampleOf(parseExposition(hfx(['metrics', '--db', heldDb]).stdout), 'hfx_deleted_wal_holders')).toBe(1);
	});
});
