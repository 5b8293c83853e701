/**
 * The demo gateway restarts after the incident (issue #23): it resumes the zombie the way Hermes
 * does (source/simulator/restart.ts) and chat 0's later turns go into the zombie, none into the
 * orphan. Run at 20x (the incident about 3 s in, the restart about 5 s in), stopped, and read back
 * through a read-only connection.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {type RunningDemo, startDemoGateway} from '../../source/commands/demo.js';
import {routingScopeOf} from '../../source/store/read/routing-home.js';
import {hfxJson} from '../helpers/cli.js';

const KEY = 'agent:main:telegram:dm:777001';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-demo-restart-'));
let demo: RunningDemo | null = null;

afterAll(async () => {
	await demo?.stop();
	fs.rmSync(dir, {recursive: true, force: true});
});

type Event = {event: string; resumed?: string; orphan?: string; zombie?: string};

/** The demo's events as they come, and a wait for one of them. */
function eventsOf(d: RunningDemo): {seen: Event[]; until: (name: string, ms: number) => Promise<Event>} {
	const seen: Event[] = [];
	const waiting: Array<() => void> = [];
	readline.createInterface({input: d.child.stdout!}).on('line', line => {
		seen.push(JSON.parse(line) as Event);
		for (const w of waiting.splice(0)) {
			w();
		}
	});
	const until = async (name: string, ms: number) =>
		new Promise<Event>((resolve, reject) => {
			const timer = setTimeout(
				() => reject(new Error(`no ${name} event within ${ms} ms: ${JSON.stringify(seen)}`)),
				ms,
			);
			const check = () => {
				const e = seen.find(x => x.event === name);
				if (e) {
					clearTimeout(timer);
					resolve(e);
				} else {
					waiting.push(check);
				}
			};

			check();
		});
	return {seen, until};
}

describe('the demo restarts after the incident', () => {
	it("resumes the zombie at the restart and writes chat 0's later turns there, not into the orphan", async () => {
		demo = await startDemoGateway({speed: 20, home: path.join(dir, 'home')});
		const events = eventsOf(demo);
		const incident = await events.until('incident', 30_000);
		const restart = await events.until('restart', 30_000);
		expect(restart).toEqual({event: 'restart', resumed: incident.zombie, orphan: incident.orphan});
		await new Promise(resolve => setTimeout(resolve, 1500));
		await demo.stop();
		const zombie = restart.resumed!;
		const orphan = restart.orphan!;
		const c = new Database(demo.db, {readonly: true, fileMustExist: true});
		try {
			const routing = c
				.prepare('SELECT session_key, entry_json, updated_at FROM gateway_routing WHERE scope = ?')
				.all(routingScopeOf(demo.db)) as Array<{session_key: string; entry_json: string; updated_at: number}>;
			const others = routing.filter(r => r.session_key !== KEY);
			expect(others).toHaveLength(2);
			// The restart's full rewrite: every other key carries one identical updated_at.
			const restartAt = others[0]!.updated_at;
			expect(others.every(r => r.updated_at === restartAt)).toBe(true);
			const key = routing.find(r => r.session_key === KEY)!;
			expect(JSON.parse(key.entry_json)).toMatchObject({session_id: zombie});
			expect(key.updated_at).toBeGreaterThan(restartAt);

			// Every row, replies too: a reply is stamped 0.4 s later at speed 1, scaled with the speed, so
			// none lands inside the orphan's span (at 20x one did, and hid the rollback from hfx).
			const times = (id: string, role = 'user') =>
				(
					c
						.prepare('SELECT timestamp FROM messages WHERE session_id = ? AND role LIKE ? ORDER BY id')
						.all(id, role) as Array<{timestamp: number}>
				).map(r => r.timestamp);
			const orphanRow = c.prepare('SELECT started_at, session_key FROM sessions WHERE id = ?').get(orphan) as {
				started_at: number;
				session_key: string | null;
			};
			expect(orphanRow.session_key).toBeNull();
			expect(times(orphan).length).toBeGreaterThan(0);
			expect(Math.max(...times(orphan))).toBeLessThan(restartAt);
			const zombieTimes = times(zombie, '%');
			expect(zombieTimes.filter(t => t >= orphanRow.started_at && t < restartAt)).toEqual([]);
			expect(zombieTimes.filter(t => t >= restartAt).length).toBeGreaterThanOrEqual(1);
			expect(
				c.prepare('SELECT ended_at, end_reason, last_activity_at FROM sessions WHERE id = ?').get(zombie),
			).toMatchObject({ended_at: null, end_reason: null, last_activity_at: Math.max(...times(zombie, '%'))});

			// Gateway ids carry 8 hex, the CLI rows 6.
			expect(orphan).toMatch(/^\d{8}_\d{6}_[0-9a-f]{8}$/);
			const cli = c.prepare("SELECT id FROM sessions WHERE source = 'cli'").all() as Array<{id: string}>;
			expect(cli.length).toBe(3);
			expect(cli.every(r => /^\d{8}_\d{6}_[0-9a-f]{6}$/.test(r.id))).toBe(true);
		} finally {
			c.close();
		}

		// And hfx finds what happened: the rollback, with the orphan as the skipped conversation.
		const {json} = hfxJson(['scan', '--db', demo.db]);
		expect(json.rollbacks.map((r: {resumedId: string; skipped: {id: string}}) => [r.resumedId, r.skipped.id])).toEqual([
			[zombie, orphan],
		]);
	}, 60_000);
});
