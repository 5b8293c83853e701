/**
 * Issue #24 point 1 through the real binary: a home after a deleted-WAL write halt (a retired
 * capture copied out from under a real writer, diverted .jsonl lines, a spool file of each
 * shape; test/helpers/write-halt.ts). The halt is found with its time, process and diverted
 * turns, the chat's newest message is named in the right file, the turns Hermes will not replay
 * are named, the legacy transcript is not a finding, and not one evidence byte changes.
 */
import {type ChildProcess, spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {hfx, hfxJson} from '../helpers/cli.js';
import {folderHashes} from '../helpers/folder-hashes.js';
import {CAPTURE_AT, HALT_KEY, type HaltHome, JSONL_NEWEST, haltHome} from '../helpers/write-halt.js';

let h: HaltHome;
let before: Record<string, string>;

beforeAll(async () => {
	h = await haltHome();
	before = folderHashes(h.dir);
}, 60_000);

afterAll(() => h?.remove());

describe('a home after a deleted-WAL write halt', () => {
	it('hfx scan names the write halt: when, which process, how many turns diverted', () => {
		const r = hfx(['scan', '--db', h.db]);
		console.log(r.stdout, r.stderr);
		expect(r.code).toBe(1);
		expect(r.stdout).toContain(
			`WRITE HALT at ${new Date(CAPTURE_AT * 1000).toISOString().slice(0, 19).replace('T', ' ')}Z by pid ${h.pidA}`,
		);
		const section = r.stdout.slice(r.stdout.indexOf('✗ WRITE HALT'), r.stdout.indexOf('Keyless by design')).split('\n');
		expect(section.length).toBeGreaterThan(10);
		expect(section.filter(l => [...l].length > 80)).toEqual([]);
	});

	it("says which file holds the chat's newest message, with every turn outside state.db counted", () => {
		const {json} = hfxJson(['scan', '--db', h.db]);
		const chat = json.newestElsewhere.find((c: {sessionKey: string}) => c.sessionKey === HALT_KEY);
		expect(chat).toMatchObject({
			newestFile: path.join(h.home, 'sessions', `${h.k}.jsonl`),
			newestAt: JSONL_NEWEST,
			newerThanStore: true,
		});
		// 3 in the capture, 2 diverted lines, the cap drop, the shutdown payload and the 2-message agent history.
		expect(chat.turns).toBe(3 + 2 + 1 + 1 + 2);
		const halt = json.findings.find((f: {kind: string}) => f.kind === 'write-halt');
		expect(halt).toMatchObject({severity: 'critical', subject: h.captureName});
		expect(halt.title).toContain('6 turns diverted');
		const capture = json.places.captures[0];
		expect(capture).toMatchObject({pid: h.pidA, at: CAPTURE_AT, turns: 3});
	});

	it('names the spool files Hermes will not replay, and only those', () => {
		const {json} = hfxJson(['scan', '--db', h.db]);
		const unreplayed = json.findings
			.filter((f: {kind: string}) => f.kind === 'unreplayed-turns')
			.map((f: {subject: string}) => f.subject)
			.sort();
		expect(unreplayed).toEqual([
			'pending_messages/pending-2a1b2c3d4e5f40718293a4b5c6d7e8f9.json',
			'pending_messages/pending-3a1b2c3d4e5f40718293a4b5c6d7e8f9.json',
		]);
		const shapes = json.places.spool.map((s: {shape: string; replay: string}) => `${s.shape}:${s.replay}`);
		expect(shapes).toEqual([
			'transcript_cap_drop:will',
			'shutdown:will',
			'shutdown:will-not',
			'agent_history:will-not',
		]);
	});

	it('a legacy transcript is listed as legacy, never a finding', () => {
		const {json} = hfxJson(['scan', '--db', h.db]);
		const legacy = json.places.diverted.find((d: {sessionId: string}) => d.sessionId === h.legacy);
		expect(legacy).toMatchObject({kind: 'legacy', turns: 0, lines: 4});
		// Last written before its row's newest message: legacy without being read.
		expect(json.places.diverted.find((d: {sessionId: string}) => d.sessionId === h.oldLegacy)).toMatchObject({
			kind: 'legacy',
			turns: 0,
			lines: 0,
		});
		expect(JSON.stringify(json.findings)).not.toMatch(new RegExp(`${h.legacy}\\.jsonl|${h.oldLegacy}\\.jsonl`));
	});

	it('hfx files lists every place with its meaning in 80 columns, exit 1', () => {
		const r = hfx(['files', '--db', h.db]);
		console.log(r.stdout, r.stderr);
		expect(r.code).toBe(1);
		expect(r.stdout).toContain(`${h.captureName}/`);
		expect(r.stdout).toContain('legacy transcript');
		expect(r.stdout).toContain('Hermes will NOT replay it');
		const section = r.stdout.slice(r.stdout.indexOf('Other places the conversation can be')).split('\n');
		expect(section.length).toBeGreaterThan(10);
		expect(section.filter(l => [...l].length > 80)).toEqual([]);
	});

	it('changes not one evidence byte', () => {
		hfx(['scan', '--db', h.db]);
		hfx(['files', '--db', h.db]);
		hfx(['scan', '--db', h.db, '--json']);
		expect(folderHashes(h.dir)).toEqual(before);
	});
});

describe('spool files still there after the running gateway started', () => {
	let sleeper: ChildProcess;
	let copy = '';

	/**
	 * A copy of the halted home whose gateway_state.json names a running process, with its start ticks (or wrong ones).
	 */
	function homeWithGateway(startTicks: (real: number) => number): string {
		copy = fs.mkdtempSync(path.join(path.dirname(h.dir), 'hfx-halt-started-'));
		fs.cpSync(h.home, copy, {recursive: true});
		const stat = fs.readFileSync(`/proc/${sleeper.pid}/stat`, 'utf8');
		const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
		fs.writeFileSync(
			path.join(copy, 'gateway_state.json'),
			JSON.stringify({
				pid: sleeper.pid,
				kind: 'hermes-gateway',
				start_time: startTicks(ticks),
				gateway_state: 'running',
				updated_at: new Date().toISOString(),
			}),
		);
		const old = Date.now() / 1000 - 600;
		for (const f of fs.readdirSync(path.join(copy, 'pending_messages'))) {
			fs.utimesSync(path.join(copy, 'pending_messages', f), old, old);
		}

		return path.join(copy, 'state.db');
	}

	beforeAll(() => {
		sleeper = spawn('sleep', ['120'], {stdio: 'ignore'});
	});

	afterAll(() => {
		sleeper.kill('SIGKILL');
		fs.rmSync(copy, {recursive: true, force: true});
	});

	it('a payload Hermes would replay, still present after the start, is one it will not replay', () => {
		const db = homeWithGateway(real => real);
		const {json} = hfxJson(['scan', '--db', db]);
		expect(json.places.spool.map((s: {replay: string}) => s.replay)).toEqual([
			'will-not',
			'will-not',
			'will-not',
			'will-not',
		]);
		const capDrop = json.findings.find(
			(f: {subject: string}) => f.subject === 'pending_messages/pending-0a1b2c3d4e5f40718293a4b5c6d7e8f9.json',
		);
		expect(capDrop.detail).toContain(`still here after the gateway (pid ${sleeper.pid}) started at`);
		fs.rmSync(copy, {recursive: true, force: true});
	});

	it('a gateway_state.json whose start does not match the running pid is not trusted', () => {
		const db = homeWithGateway(real => real - 500);
		const {json} = hfxJson(['scan', '--db', db]);
		expect(json.places.spool.map((s: {replay: string}) => s.replay)).toEqual(['will', 'will', 'will-not', 'will-not']);
	});
});
