/**
 * A rollback that already happened, seen by `hfx watch` (real binary) while a second process, the
 * gateway's side, writes the post-restart turns into the v21 incident store (issue #23 point 1):
 * one `rollback-happened` event with the finding's facts, in JSON lines and in text; the risk that
 * ended in it is not said to have "cleared" as if all were well; `hfx_rollback_happened_chats`
 * goes to 1 in the textfile (and in `hfx metrics`); once the stranded row is adopted (what an
 * adoption writes), `rollback-happened-cleared` and the gauge back to 0. Nothing beside the store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {hfx} from '../helpers/cli.js';
import {
	INCIDENT_CHAT,
	INCIDENT_ORPHAN,
	INCIDENT_ZOMBIE,
	INCIDENT_RESTART,
	copyIncident,
	incidentWriter,
} from '../helpers/post-restart.js';
import {parseExposition, sampleOf} from '../helpers/prometheus.js';
import {WatchProcess} from '../helpers/watch-process.js';
import type {WriterProcess} from '../helpers/writer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-watch-rollback-'));
const running: Array<WatchProcess | WriterProcess> = [];
afterEach(async () => {
	for (const p of running.splice(0)) {
		await (p instanceof WatchProcess ? p.stop('SIGKILL') : p.kill());
	}
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

const gauge = (file: string) =>
	sampleOf(parseExposition(fs.readFileSync(file, 'utf8')), 'hfx_rollback_happened_chats', {profile: 'default'});

describe('hfx watch and a rollback that happens', () => {
	it('rollback-happened once with its facts (JSON lines), the gauge 1, then ' +
		'-cleared and 0 after the adoption', async () => {
		const home = path.join(dir, 'json');
		const db = copyIncident(home);
		const writer = await incidentWriter(db);
		running.push(writer);
		const out = path.join(dir, 'json-out');
		fs.mkdirSync(out);
		const file = path.join(out, 'hfx.prom');
		const watch = new WatchProcess(['--home', home, '--interval', '0.2s', '--json-lines', '--textfile', file]);
		running.push(watch);
		await watch.waitFor(
			events => events.some(e => e.event === 'rollback-risk-raised' && e.sessionKey === INCIDENT_CHAT),
			15_000,
			'the risk before the restart',
		);
		await watch.waitFor(() => fs.existsSync(file) && gauge(file) === 0, 5000, 'the gauge at 0');
		expect(watch.events().filter(e => e.event === 'rollback-happened')).toEqual([]);

		await writer.send(INCIDENT_RESTART);
		// The risk's end comes from the same reading, but maybe a line later than the rollback (waitForEach).
		const [, over] = await watch.waitForEach(
			[{event: 'rollback-happened'}, {event: 'rollback-risk-cleared', sessionKey: INCIDENT_CHAT}],
			10_000,
		);
		const happened = watch.events().filter(e => e.event === 'rollback-happened');
		expect(happened).toHaveLength(1);
		expect(happened[0]).toMatchObject({
			profile: 'default',
			sessionKey: INCIDENT_CHAT,
			resumedId: INCIDENT_ZOMBIE,
			skippedId: INCIDENT_ORPHAN,
			skippedMessages: 798,
			writtenSince: {messages: 4, userTurns: 2},
			certainty: 'strong',
			next:
				'preview its adoption with: hfx repair --only 427c496c --donor 46fab954 ' +
				'(then stop the gateway and add --apply)',
		});
		expect(happened[0]!.resumedAt - happened[0]!.jumpedFrom).toBeGreaterThan(4 * 86_400);
		expect(happened[0]!.evidence).toContain("its id has the gateway's 8-hex suffix: the gateway minted it for a chat");
		expect(happened[0]!.message).not.toMatch(/do not restart/i);
		// The risk ended because the restart came: said so, not "resumes its newest conversation".
		expect(over).toMatchObject({rolledBack: true});
		expect(over!.message).toContain('the restart came and resumed 20260807_050620_46fab954');
		await watch.waitFor(() => gauge(file) === 1, 5000, 'the gauge at 1');

		// What an adoption writes: the stranded row gets the chat's identity, the resumed row is retired.
		await writer.send({
			op: 'exec',
			sql:
				`UPDATE sessions SET session_key = '${INCIDENT_CHAT}', user_id = ` +
				`'u-teknium', chat_id = '777001', chat_type = 'dm' WHERE id = ` +
				`'${INCIDENT_ORPHAN}'; UPDATE sessions SET ended_at = 1786483000, ` +
				`end_reason = 'superseded_by_repair' WHERE id = '${INCIDENT_ZOMBIE}'`,
		});
		const [ended] = await watch.waitForEach([{event: 'rollback-happened-cleared'}], 10_000);
		expect(ended).toMatchObject({
			sessionKey: INCIDENT_CHAT,
			resumedId: INCIDENT_ZOMBIE,
			skippedId: INCIDENT_ORPHAN,
		});
		await watch.waitFor(() => gauge(file) === 0, 5000, 'the gauge back at 0');
		expect((await watch.stop('SIGTERM')).code).toBe(0);
		expect(watch.stderr).toBe('');
		expect(fs.readdirSync(out)).toEqual(['hfx.prom']);
	}, 60_000);

	it('in text, the same facts on one line; hfx metrics says 1', async () => {
		const home = path.join(dir, 'text');
		const db = copyIncident(home);
		const writer = await incidentWriter(db);
		running.push(writer);
		await writer.send(INCIDENT_RESTART);
		const watch = new WatchProcess(['--home', home, '--interval', '0.2s']);
		running.push(watch);
		const line = () => watch.lines.find(l => l.includes('rolled back'));
		const until = Date.now() + 15_000;
		while (!line() && Date.now() < until) {
			await new Promise(resolve => setTimeout(resolve, 50));
		}

		expect(line()).toBe(
			'hfx watch: default: rolled back: at 2026-08-11 21:13 UTC a restart ' +
				'resumed 20260807_050620_46fab954 for agent:main:telegram:dm:777001, a ' +
				'context 4.7 days old; the 798 messages it skipped (2026-08-07 05:22 UTC ' +
				'to 2026-08-08 21:13 UTC) are stranded in the keyless ' +
				'20260807_052242_427c496c (certainty strong); 2 user turns (4 messages) ' +
				'written into 20260807_050620_46fab954 since. Next: preview its adoption ' +
				'with: hfx repair --only 427c496c --donor 46fab954 (then stop the ' +
				'gateway and add --apply)',
		);
		expect(watch.lines.findIndex(l => l.includes('rolled back'))).toBe(0);
		expect((await watch.stop('SIGTERM')).code).toBe(0);

		const metrics = hfx(['metrics', '--home', home]);
		expect(metrics.stdout).toContain(
			'# TYPE hfx_rollback_happened_chats gauge\nhfx_rollback_happened_chats{profile="default"} 1\n',
		);
	}, 60_000);
});
