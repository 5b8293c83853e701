/**
 * `hfx timeline CHAT` on the real binary and the real v21 incident store moved to its post-restart
 * state as the gateway does it (hermes-incidents.md §1.1): the stale keyed row resumed and two turns
 * written into it days later, the routing index rewritten at the restart, the entry upserted by
 * each turn, and a gateway.log with the start banner. Written by the sqlite3 CLI (a second
 * process) in a temp folder. Text and --json, the exit codes, a chat named by a row's suffix, an
 * unknown chat (one line, exit 2), the log's local asctime read at the machine's offset, and the
 * evidence untouched.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {evidenceState, hfx, hfxJson} from '../../helpers/cli.js';
import {ROOT} from '../../helpers/writer.js';

const KEY = 'agent:main:telegram:dm:777001';
const K = '20260807_050620_46fab954';
const O = '20260807_052242_427c496c';
/** 2026-08-11 21:13:33 UTC: the first turn after the restart. */
const TR = 1_786_482_813;
const START = TR - 120;

let dir = '';
let db = '';

/** Local asctime of an epoch in a fixed offset (minutes east of UTC), as Python's logging writes it. */
function asctime(epoch: number, offsetMinutes: number): string {
	return new Date((epoch + offsetMinutes * 60) * 1000).toISOString().replace('T', ' ').replace('.', ',').slice(0, 23);
}

function postRestart(target: string): void {
	const scope = path.join(fs.realpathSync(path.dirname(target)), 'sessions');
	const entry = (id: string, key: string) => `'${JSON.stringify({session_key: key, session_id: id})}'`;
	const sql = [
		'BEGIN;',
		...[0, 5, 60, 65].map(
			(d, i) =>
				`INSERT INTO messages (session_id, role, content, timestamp) VALUES ` +
				`('${K}', '${i % 2 ? 'assistant' : 'user'}', 'after the ` +
				`restart ${i}', ${TR + d});`,
		),
		`UPDATE sessions SET message_count = message_count + 4 WHERE id = '${K}';`,
		// The restart's full rewrite (every key of the scope, one updated_at), then this chat's turns upsert its entry.
		`INSERT INTO gateway_routing VALUES ('${scope}', ` +
			`'agent:main:discord:group:9001', ` +
			`${entry('20260808_001820_8719394d', 'agent:main:discord:group:9001')}, ${TR - 30});`,
		`INSERT INTO gateway_routing VALUES ('${scope}', ` +
			`'agent:main:slack:dm:C01', ${entry('20260809_001820_3fb83ac3', 'agent:main:slack:dm:C01')}, ${TR - 30});`,
		`INSERT INTO gateway_routing VALUES ('${scope}', '${KEY}', ${entry(K, KEY)}, ${TR + 65});`,
		'COMMIT;',
	].join('\n');
	execFileSync('sqlite3', [target, sql]);
}

beforeAll(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-timeline-'));
	db = path.join(dir, 'state.db');
	fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), db);
	postRestart(db);
	fs.mkdirSync(path.join(dir, 'logs'));
	// Written at UTC+05:30: the reader must read it at the same offset (TZ below) to land before tR.
	fs.writeFileSync(
		path.join(dir, 'logs', 'gateway.log'),
		[
			`${asctime(START - 3600, 330)} INFO gateway.run: Gateway stopped (total teardown 0.42s)`,
			`${asctime(START, 330)} INFO gateway.run: Starting Hermes Gateway...`,
			`${asctime(START + 2, 330)} INFO gateway.run: Gateway running with 1 platform(s)`,
			`${asctime(START + 3, 330)} INFO gateway.run: unrelated line`,
			'',
		].join('\n'),
	);
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

const IST = {TZ: 'Asia/Kolkata'};

describe('hfx timeline', () => {
	it('tells the rollback on one time axis in text at 80 columns, and exits 1', () => {
		const before = evidenceState(dir);
		const r = hfx(['timeline', KEY, '--db', db], {env: IST});
		expect(r.stderr).toBe('');
		expect(r.code).toBe(1);
		const lines = r.stdout.trimEnd().split('\n');
		expect(
			lines.every(l => [...l].length <= 80),
			lines.filter(l => [...l].length > 80).join('\n'),
		).toBe(true);
		expect(r.stdout).toMatch(
			/! ROLLED BACK: the chat resumed 46fab954, a context 4\.7 days old; 2 user turns\n {2}\(4 messages\)/,
		);
		const order = [
			'FORK     keyless 427c496c born',
			'RESTART  gateway restart (inferred): a start is logged here',
			'RESUME   ROLLED BACK',
			'routing  routing entry upserted: it names 46fab954',
		];
		const at = order.map(o => r.stdout.indexOf(o));
		expect(
			at.every(i => i > 0),
			r.stdout,
		).toBe(true);
		expect(at).toEqual([...at].sort((a, b) => a - b));
		expect(r.stdout).toContain('read as UTC+05:30');
		expect(r.stdout).toContain('logs read: gateway.log');
		expect(evidenceState(dir)).toEqual(before);
	});

	it(
		'--json: the rows with their evidence, the events in time order, the ' +
			"restart dated by the log line at the machine's offset",
		() => {
			const {code, json} = hfxJson(['timeline', '427c496c', '--db', db], {env: IST});
			expect(code).toBe(1);
			expect(json.sessionKey).toBe(KEY);
			expect(json.rows.map((r: {id: string}) => r.id)).toEqual([K, O]);
			expect(json.rows[1]).toMatchObject({id: O, keyed: false, via: ['skipped'], certainty: 'strong', messages: 798});
			const times = json.events.map((e: {at: number}) => e.at);
			expect(times).toEqual([...times].sort((a: number, b: number) => a - b));
			const restart = json.events.find((e: {kind: string}) => e.kind === 'restart');
			expect(restart).toMatchObject({at: START, certainty: 'strong'});
			expect(json.events.filter((e: {kind: string}) => e.kind === 'log').map((e: {text: string}) => e.text)).toEqual([
				expect.stringMatching(/^gateway\.log:1 INFO Gateway stopped/),
				expect.stringMatching(/^gateway\.log:2 INFO Starting Hermes Gateway/),
				expect.stringMatching(/^gateway\.log:3 INFO Gateway running/),
			]);
			expect(json.logs.files).toEqual(['gateway.log']);
			expect(json.restartNow).toBeNull();
		},
	);

	it('read at another offset, the same log line lands elsewhere: the offset assumed is said on the line', () => {
		const {json} = hfxJson(['timeline', KEY, '--db', db], {env: {TZ: 'UTC'}});
		const start = json.events.find(
			(e: {kind: string; text: string}) => e.kind === 'log' && e.text.includes('Starting'),
		);
		expect(start.at).toBe(START + 330 * 60);
		expect(start.evidence[0]).toMatch(/read as UTC\+00:00/);
	});

	it('a chat not at risk and never rolled back exits 0', () => {
		const r = hfx(['timeline', 'agent:main:slack:dm:C02', '--db', db]);
		expect(r.code).toBe(0);
		expect(r.stdout).toContain('no rollback found and none at risk');
	});

	it('an unknown chat, and a keyless row tied to no chat: one line on stderr, exit 2, nothing on stdout', () => {
		for (const [name, words] of [
			['nope', 'no chat or session "nope". Next: list the chats with: hfx routing'],
			['777001', `Next: did you mean: hfx timeline ${KEY}`],
			['283fef', 'belongs to no chat'],
		] as const) {
			const r = hfx(['timeline', name, '--db', db]);
			expect(r.code, name).toBe(2);
			expect(r.stdout).toBe('');
			expect(r.stderr.trimEnd().split('\n'), name).toHaveLength(1);
			expect(r.stderr).toContain(words);
		}

		expect(hfxJson(['timeline', 'nope', '--db', db]).json.error.kind).toBe('no-such-key');
	});

	it('has its own --help, and CHAT is required', () => {
		expect(hfx(['timeline', '--help']).stdout).toMatch(/hfx timeline CHAT/);
		expect(hfx(['timeline', '--db', db]).code).toBe(2);
	});
});
