/**
 * Issue #27 point 2, through the built binary: "v30" is not one rule set. A v30 store whose keyed
 * donor carries a garbage last_activity_at (5.49e+246, the value of #91536) is judged by the rules
 * of the installed build: a build before #91543 (no epoch window) takes that value as the donor's
 * last activity, so no donor falls quiet near the orphan's start and repair-routing refuses it; a
 * build with #91543 ignores it and adopts. The build is read from the running gateway's
 * gateway_state.json (a sleeper stands in for the gateway, its pid and start ticks written as
 * Hermes does), or from `hermes --version` when asked; with no build both verdicts are shown.
 */
import {type ChildProcess, spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {StoreWriter} from '../../source/simulator/store-writer.js';
import {evidenceState, hfx, hfxJson} from '../helpers/cli.js';

const T0 = 1_786_060_800;
const MIN = 60;
const GARBAGE = 5.49e246;
/**
 * A commit of the upstream v30 tree that hermes-incidents §3.3 names as lacking #91543 (its first 8 hex; the rest
 * filler).
 */
const SHA_WITHOUT = `f31cf971${'0'.repeat(32)}`;
/** One §3.3 names as having it. */
const SHA_WITH = `00704d08${'0'.repeat(32)}`;

let dir: string;
let gateway: ChildProcess;
let ticks: number;

type Store = {home: string; db: string; key: string; donor: string; orphan: string};

function buildStore(name: string): Store {
	const home = path.join(dir, name);
	fs.mkdirSync(home);
	const db = path.join(home, 'state.db');
	const w = new StoreWriter(db, {shape: 'v30'});
	const key = 'agent:main:telegram:dm:77';
	const peer = {source: 'telegram', userId: 'u77', chatId: '77', chatType: 'dm'};
	const donor = w.createSession({...peer, sessionKey: key, startedAt: T0});
	w.addConversation(donor, 20, T0 + 10, T0 + 15 * MIN);
	// The salvaged garbage double of #91536 in the donor's last_activity_at.
	w.db.prepare('UPDATE sessions SET last_activity_at = ? WHERE id = ?').run(GARBAGE, donor);
	w.setRouting(key, donor, T0 + 15 * MIN);
	const orphan = w.createSession({source: 'telegram', userId: 'u77', startedAt: T0 + 16 * MIN});
	w.addConversation(orphan, 30, T0 + 16 * MIN + 10, T0 + 60 * MIN);
	w.close();
	return {home, db, key, donor, orphan};
}

function gatewayState(home: string, fields: Record<string, unknown>): void {
	fs.writeFileSync(
		path.join(home, 'gateway_state.json'),
		JSON.stringify({pid: gateway.pid, start_time: ticks, gateway_state: 'running', ...fields}),
	);
}

function orphanVerdict(json: any, id: string): string {
	const o = [...json.orphans, ...json.listedRefusedLocal].find((x: any) => x.orphanId === id);
	return o.verdict === 'adoptable' ? `adoptable from ${o.donorId}` : `refused (${o.reasonKind})`;
}

beforeAll(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-build-rules-'));
	gateway = spawn('sleep', ['120'], {stdio: 'ignore'});
	const stat = fs.readFileSync(`/proc/${gateway.pid}/stat`, 'utf8');
	ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
});

afterAll(() => {
	gateway.kill('SIGKILL');
	fs.rmSync(dir, {recursive: true, force: true});
});

describe('the rules of the installed build (issue #27, point 2)', () => {
	it(
		'a running gateway of a build before #91543 (a commit §3.3 names): the ' +
			'garbage donor is refused, said so with the build and how it was decided',
		() => {
			const s = buildStore('before');
			gatewayState(s.home, {code_version: '0.20.5', code_sha: SHA_WITHOUT});
			const before = evidenceState(s.home);
			const {json} = hfxJson(['scan', '--db', s.db], {env: {HERMES_HOME: ''}});
			expect(json.rules).toMatchObject({
				ruleSet: 'v30',
				rules: 'v30 before #91543',
				build: '0.20.5@f31cf9710000',
				confidence: 'strong',
				alternative: null,
			});
			expect(json.rules.decidedBy).toContain('gateway_state.json of the running gateway');
			expect(json.rules.decidedBy).toContain('known to lack #91543');
			expect(orphanVerdict(json, s.orphan)).toBe('refused (no_predecessor)');
			expect(json.buildAlternative).toBeNull();
			// Upgrading Hermes brings the epoch window: the adoption is what current Hermes would do.
			expect(json.afterUpgrade.changes.map((c: any) => c.subject)).toContain(s.orphan);
			const text = hfx(['scan', '--db', s.db], {env: {HERMES_HOME: ''}}).stdout;
			expect(text).toMatch(
				/^rule set v30 before #91543: schema_version 30: .*; but this build lacks #91543 \(the freshest-of "last active" ignores timestamps outside the epoch window\)$/m,
			);
			expect(text).toMatch(
				/^build 0\.20\.5@f31cf9710000, strong: build 0\.20\.5@f31cf9710000 from gateway_state\.json of the running gateway/m,
			);
			const routing = hfx(['routing', '--db', s.db], {env: {HERMES_HOME: ''}}).stdout;
			expect(routing).toMatch(/^rule set v30 before #91543: /m);
			// The fleet's one info series names the rules the verdicts used, not the schema's generation alone.
			const metrics = hfx(['metrics', '--db', s.db], {env: {HERMES_HOME: ''}}).stdout;
			expect(metrics).toMatch(/^hfx_store_info\{[^}]*rule_set="v30 before #91543"[^}]*build="0\.20\.5@f31cf9710000"/m);
			expect(evidenceState(s.home)).toEqual(before);
		},
	);

	it(
		'a running gateway at a commit §3.3 names as having #91543: the epoch ' +
			'window applies and the orphan is adopted',
		() => {
			const s = buildStore('after');
			gatewayState(s.home, {code_version: '0.21.4', code_sha: SHA_WITH});
			const {json} = hfxJson(['scan', '--db', s.db], {env: {HERMES_HOME: ''}});
			expect(json.rules).toMatchObject({
				rules: 'v30',
				build: '0.21.4@00704d080000',
				confidence: 'strong',
				alternative: null,
			});
			expect(orphanVerdict(json, s.orphan)).toBe(`adoptable from ${s.donor}`);
			expect(json.afterUpgrade).toBeNull();
		},
	);

	it(
		'a version not known to have or lack #91543 decides nothing: both ' +
			'verdicts, as with no build; an older version lacks it',
		() => {
			const s = buildStore('ambiguous');
			gatewayState(s.home, {code_version: '0.21.4'});
			const {json} = hfxJson(['scan', '--db', s.db], {env: {HERMES_HOME: ''}});
			expect(json.rules).toMatchObject({
				rules: 'v30',
				build: '0.21.4',
				confidence: 'weak',
				alternative: 'v30 before #91543',
			});
			const text = hfx(['scan', '--db', s.db], {env: {HERMES_HOME: ''}}).stdout;
			expect(text).toContain(
				'Build 0.21.4 undecided: with v30 before #91543 rules these verdicts differ (above: v30):',
			);
			expect(orphanVerdict(json, s.orphan)).toBe(`adoptable from ${s.donor}`);
			expect(orphanVerdict(json.buildAlternative, s.orphan)).toBe('refused (no_predecessor)');
			gatewayState(s.home, {code_version: '0.20.6'});
			const older = hfxJson(['scan', '--db', s.db], {env: {HERMES_HOME: ''}}).json;
			expect(older.rules).toMatchObject({
				rules: 'v30 before #91543',
				build: '0.20.6',
				confidence: 'medium',
				alternative: null,
			});
			expect(orphanVerdict(older, s.orphan)).toBe('refused (no_predecessor)');
		},
	);

	it('no build (no running gateway): both rule sets, and where they disagree both verdicts are shown', () => {
		const s = buildStore('unknown');
		// A file left by a gateway that is gone is not trusted (another start time).
		fs.writeFileSync(
			path.join(s.home, 'gateway_state.json'),
			JSON.stringify({
				pid: gateway.pid,
				start_time: ticks + 1,
				gateway_state: 'running',
				code_version: '0.20.5',
				code_sha: SHA_WITHOUT,
			}),
		);
		const {json} = hfxJson(['scan', '--db', s.db], {env: {HERMES_HOME: ''}});
		expect(json.rules).toMatchObject({rules: 'v30', build: null, confidence: 'weak', alternative: 'v30 before #91543'});
		expect(json.rules.changes).toEqual([expect.objectContaining({pr: 91543, included: null})]);
		expect(orphanVerdict(json, s.orphan)).toBe(`adoptable from ${s.donor}`);
		expect(json.buildAlternative.rules).toBe('v30 before #91543');
		expect(orphanVerdict(json.buildAlternative, s.orphan)).toBe('refused (no_predecessor)');
		const text = hfx(['scan', '--db', s.db], {env: {HERMES_HOME: ''}}).stdout;
		expect(text).toMatch(/^build unknown \(or v30 before #91543\), weak: no build read/m);
		expect(text).toContain('Build unknown: with v30 before #91543 rules these verdicts differ (above: v30):');
		expect(text).toContain(
			`  ${s.orphan}: with v30 adoptable into ${s.key} from ${s.donor} ` +
				`(contiguity); with v30 before #91543, refused (no_predecessor)`,
		);
	});

	it('--ask-hermes: `hermes --version` (the one on PATH, no shell) names a build when no gateway runs', () => {
		const s = buildStore('asked');
		const bin = path.join(dir, 'bin');
		fs.mkdirSync(bin);
		fs.writeFileSync(path.join(bin, 'hermes'), '#!/bin/sh\necho "Hermes v0.20.4 (main @ 10e7de79a9)"\n', {mode: 0o755});
		const env = {HERMES_HOME: '', PATH: `${bin}:${process.env.PATH}`};
		expect(hfxJson(['scan', '--db', s.db], {env}).json.rules.build).toBeNull();
		const {json} = hfxJson(['scan', '--db', s.db, '--ask-hermes'], {env});
		expect(json.rules).toMatchObject({rules: 'v30 before #91543', build: '0.20.4@10e7de79a9', confidence: 'medium'});
		expect(json.rules.decidedBy).toContain('`hermes --version`');
		expect(orphanVerdict(json, s.orphan)).toBe('refused (no_predecessor)');
		// No hermes on PATH: said, and the generation decides with both verdicts.
		const none = hfxJson(['scan', '--db', s.db, '--ask-hermes'], {
			env: {HERMES_HOME: '', PATH: path.join(dir, 'nowhere')},
		});
		expect(none.json.rules).toMatchObject({build: null, alternative: 'v30 before #91543'});
		expect(none.json.rules.decidedBy).toMatch(/^`hermes --version`: no hermes on PATH; /);
	});
});
