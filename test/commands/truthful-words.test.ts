/**
 * Issue #28 point 9, small untruths, on the real binary: verify's summary of a Hermes zip claims
 * no seal it lacks; `hfx audit show|verify --json` with no trail print a JSON document on stdout;
 * a restore run as root leaves `hfx-audit.head` the agent user's (owner and mode of the head it
 * replaced); `doctor` finds the verified backups `hfx backups` lists (a quick snapshot too); a
 * repair refusal is said once (its one stderr line), not also as `✗`/`next:` lines on stdout.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {hfx, hfxJson} from '../helpers/cli.js';
import {ROOT, WriterProcess} from '../helpers/writer.js';
import {cleanupTemps, makeHome, tempDir} from '../backup/helpers.js';

afterAll(cleanupTemps);
const writers: WriterProcess[] = [];
afterEach(async () => {
	for (const w of writers.splice(0)) {
		await w.kill();
	}
});

const count = (text: string, part: string): number => text.split(part).length - 1;

describe('truthful words (issue #28 point 9)', () => {
	it('verify of a Hermes zip (no seal, no manifest) does not claim a seal or a sha256 in its summary', () => {
		const zip = path.join(tempDir('words-zip'), 'hermes-backup.zip');
		fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-generations/hermes-backup.zip'), zip);
		const r = hfx(['verify', zip]);
		expect(r.code, r.stderr).toBe(0);
		expect(r.stdout).toContain('no hfx seal');
		const summary = r.stdout.split('\n').find(l => l.includes('every byte checked'))!;
		expect(summary).toBeDefined();
		expect(summary).not.toMatch(/seal|sha256/);
		expect(summary).toContain('CRC-32');
	});

	it(
		'audit show --json and audit verify --json with no trail print a JSON ' +
			'document on stdout, one line on stderr, exit 2',
		() => {
			const home = makeHome('words-audit');
			for (const action of ['show', 'verify']) {
				const r = hfx(['audit', action, '--db', home.db, '--json']);
				expect(r.code).toBe(2);
				const doc = JSON.parse(r.stdout) as {error: {kind: string; file: string; reason: string}};
				expect(doc.error).toMatchObject({
					kind: 'not-found',
					file: path.join(home.root, 'hfx-audit.jsonl'),
					reason: 'no audit trail here',
				});
				expect(r.stderr.trim().split('\n')).toHaveLength(1);
			}
		},
	);

	it.runIf(process.getuid?.() === 0)(
		"a restore run as root keeps hfx-audit.head the agent user's (its owner and mode)",
		() => {
			const home = makeHome('words-head');
			expect(hfx(['repair', '--apply', '--yes', '--db', home.db]).code).toBe(0);
			const out = tempDir('words-head-out');
			expect(hfx(['backup', '--home', home.root, '-o', out]).code).toBe(0);
			const archive = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);
			const head = path.join(home.root, 'hfx-audit.head');
			// The agent's user (not root) owns the home's trail and its head, readable by its group.
			fs.chownSync(head, 4321, 4321);
			fs.chmodSync(head, 0o640);
			const restore = hfx(['restore', archive, '--home', home.root, '--yes']);
			expect(restore.code, restore.stderr).toBe(0);
			const st = fs.statSync(head);
			expect({uid: st.uid, gid: st.gid, mode: st.mode & 0o777}).toEqual({uid: 4321, gid: 4321, mode: 0o640});
		},
	);

	it('doctor finds the verified quick snapshot that hfx backups lists', () => {
		const home = makeHome('words-doctor');
		fs.rmSync(path.join(home.root, 'state-snapshots'), {recursive: true, force: true});
		const quick = hfxJson<{path?: string; dir?: string}>(['backup', '--quick', '--home', home.root]);
		expect(quick.code, quick.stderr).toBe(0);
		const snapshots = path.join(home.root, 'state-snapshots');
		const snap = path.join(
			snapshots,
			fs.readdirSync(snapshots).find(n => !n.startsWith('.') && !n.endsWith('.jsonl'))!,
		);
		expect(hfx(['verify', snap]).code).toBe(0);
		const listed = hfxJson<{backups: Array<{name: string; verified: unknown}>}>(['backups', '--home', home.root]).json
			.backups;
		expect(listed.find(b => b.name === path.basename(snap))?.verified).toBeTruthy();
		const doctor = hfxJson<{lastVerified: {name: string} | null}>(['doctor', '--home', home.root]);
		expect(doctor.json.lastVerified?.name).toBe(path.basename(snap));
	});

	it('a repair refused because a process holds the store says its cause once: the one stderr line', async () => {
		const dir = tempDir('words-refusal');
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
		const r = hfx(['repair', '--db', db, '--apply', '--yes']);
		expect(r.code).toBe(2);
		const lines = r.stderr.trim().split('\n');
		expect(lines).toHaveLength(1);
		const reason = /^hfx: [^:]+: (.*?)\. Next: /.exec(lines[0]!)?.[1] ?? '';
		expect(reason.length).toBeGreaterThan(10);
		expect(count(r.stdout + r.stderr, reason)).toBe(1);
		expect(r.stdout).not.toMatch(/^next: /m);
	});
});
