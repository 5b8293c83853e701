/**
 * The real TUI keeps its optimised code while it follows a writer (issue #26): the built bin (dist/hfx.js) in tmux at
 * 140x40 on a store a second process writes to, V8's code log on (--log-code) and mark-compacts made frequent
 * (--stress-marking). A function whose optimised code only closures made per render or per call hold loses it at each
 * mark-compact and TurboFan compiles it again, once every few mark-compacts; a function made once keeps it. After the
 * warm-up, no function of dist/ may be compiled by TurboFan 3 times or more.
 */
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {tmux, tmuxTestFile, waitForScreenOf} from '../helpers/tmux.js';
import {ROOT, WriterProcess} from '../helpers/writer.js';

const SESSIONS = 400;
const WARM_MS = 8_000;
const FOLLOW_MS = 30_000;

let writer: WriterProcess | undefined;
let writing = false;
const terminal = tmuxTestFile('optimised', async () => {
	writing = false;
	await writer?.kill();
});

/** TurboFan code made for dist/'s functions `afterUs` µs into the log, as `count location`, those made 3+ times. */
function compiledAgain(log: string, afterUs: number): string[] {
	const dist = `${pathToFileURL(path.join(ROOT, 'dist')).href}/`;
	const counts = new Map<string, number>();
	for (const line of log.split('\n')) {
		const m = line.match(/^code-creation,JS,\d+,(\d+),0x[0-9a-f]+,\d+,.*? (\S+),0x[0-9a-f]+,\*$/);
		if (m && Number(m[1]) > afterUs && m[2]!.startsWith(dist)) {
			counts.set(m[2]!, (counts.get(m[2]!) ?? 0) + 1);
		}
	}

	return [...counts].filter(([, n]) => n >= 3).map(([at, n]) => `${n} ${at.slice(dist.length)}`);
}

/** Adds a message to one of the sessions every `everyMs` until the test ends (one commit each). */
async function write(ids: readonly string[], everyMs: number): Promise<void> {
	writing = true;
	for (let i = 0; writing; i++) {
		await writer!.send({
			op: 'messages',
			id: ids[(i * 7) % ids.length]!,
			messages: [{role: i % 2 ? 'assistant' : 'user', content: `message ${i}`, timestamp: T0 + 600 + i}],
		});
		await new Promise(resolve => setTimeout(resolve, everyMs));
	}
}

describe('optimised code kept while following', () => {
	it('no function of the bundle is compiled by TurboFan 3+ times after the warm-up', async () => {
		const db = path.join(terminal.dir, 'state.db');
		writer = new WriterProcess(db);
		await writer.started();
		const ids: string[] = [];
		await writer.send({op: 'begin'});
		for (let i = 0; i < SESSIONS; i++) {
			ids.push(
				await writer.create({
					source: 'telegram',
					userId: `u${i}`,
					sessionKey: `agent:main:telegram:dm:${1000 + i}`,
					chatId: String(1000 + i),
					chatType: 'dm',
					displayName: `user ${i}`,
					startedAt: T0 + i,
				}),
			);
		}

		await writer.send({op: 'commit'});
		const log = path.join(terminal.dir, 'v8.log');
		const started = Date.now();
		const flags = `--log-code --logfile=${log} --no-logfile-per-isolate --stress-marking=10`;
		terminal.start(140, 40, `--db ${db}`, undefined, flags);
		await waitForScreenOf(terminal.session, /Z zombie/, 30_000);
		const following = write(ids.slice(0, 40), 5);
		await new Promise(resolve => setTimeout(resolve, FOLLOW_MS));
		writing = false;
		await following;
		tmux('send-keys', '-t', terminal.session, 'q');
		await waitForScreenOf(terminal.session, /EXIT=0/);
		const warmUs = (Date.now() - started - FOLLOW_MS + WARM_MS) * 1000;
		expect(compiledAgain(fs.readFileSync(log, 'utf8'), warmUs)).toEqual([]);
	}, 120_000);
});
