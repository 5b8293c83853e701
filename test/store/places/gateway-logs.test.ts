/**
 * The gateway logs beside a store (store/places/gateway-logs.ts): gateway.log and its rotations and
 * errors.log are read, a line in two files counts once, agent.log is left out where gateway.log
 * holds the gateway's lines, a CRLF line parses, a FIFO or a link is not read (said so), and a log
 * larger than hfx reads is read from its tail, from a whole line.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {MAX_LOG_BYTES, localEpoch, readGatewayLogs} from '../../../source/store/places/gateway-logs.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-gateway-logs-'));
afterAll(() => fs.rmSync(root, {recursive: true, force: true}));

function home(name: string, files: Record<string, string>): string {
	const dir = path.join(root, name);
	fs.mkdirSync(path.join(dir, 'logs'), {recursive: true});
	for (const [file, text] of Object.entries(files)) {
		fs.writeFileSync(path.join(dir, 'logs', file), text);
	}

	return path.join(dir, 'state.db');
}

const START = '2026-08-11 21:11:33,000 INFO gateway.run: Starting Hermes Gateway...';
const REPOINT =
	'2026-08-11 21:11:34,500 WARNING gateway.session: gateway.session: ' +
	"repointing stale sessions.json entry 'agent:main:telegram:dm:1' from " +
	"ended a_1 (end_reason='agent_close') to recovered b_2";

describe('readGatewayLogs', () => {
	it('reads gateway.log* and errors.log, counts a line once, leaves agent.log out, parses CRLF', () => {
		const db = home('plain', {
			'gateway.log': `${START}\r\nnoise\n`,
			'gateway.log.1': '2026-08-10 08:00:00,000 INFO gateway.run: Gateway stopped (total teardown 1.00s)\n',
			'errors.log': `${REPOINT}\n`,
			'agent.log': `${START}\n2026-08-11 21:11:35,000 INFO gateway.run: Gateway running with 1 platform(s)\n`,
		});
		const logs = readGatewayLogs(db);
		expect(logs.files).toEqual(['gateway.log', 'gateway.log.1', 'errors.log']);
		expect(logs.lines.map(l => [l.kind, l.file, l.lineNumber])).toEqual([
			['gateway-stop', 'gateway.log.1', 1],
			['gateway-start', 'gateway.log', 1],
			['repoint', 'errors.log', 1],
		]);
		expect(logs.lines[2]).toMatchObject({sessionKey: 'agent:main:telegram:dm:1', ids: ['a_1', 'b_2']});
		const expected = new Date(2026, 7, 11, 21, 11, 33, 0).getTime() / 1000;
		expect(logs.lines[1]!.at).toBe(expected);
		expect(localEpoch({year: 2026, month: 8, day: 11, hour: 21, minute: 11, second: 33, ms: 0}).offset).toMatch(
			/^[+-]\d{2}:\d{2}$/,
		);
	});

	it('reads agent.log when there is no gateway.log', () => {
		const logs = readGatewayLogs(home('agent-only', {'agent.log': `${START}\n`}));
		expect(logs.files).toEqual(['agent.log']);
		expect(logs.lines).toHaveLength(1);
	});

	it('does not read a FIFO or a link, and says so', () => {
		const db = home('odd', {'errors.log': `${REPOINT}\n`});
		expect(spawnSync('mkfifo', [path.join(path.dirname(db), 'logs', 'gateway.log')]).status).toBe(0);
		fs.writeFileSync(path.join(root, 'elsewhere.log'), `${START}\n`);
		fs.symlinkSync(path.join(root, 'elsewhere.log'), path.join(path.dirname(db), 'logs', 'gateway.log.1'));
		const logs = readGatewayLogs(db);
		expect(logs.files).toEqual(['errors.log']);
		expect(logs.notes).toEqual([
			expect.stringMatching(/^gateway\.log: not read \(a FIFO/),
			'gateway.log.1: not read (a symbolic link: hfx does not follow it)',
		]);
	});

	it('reads a log larger than MAX_LOG_BYTES from its tail, from a whole line', () => {
		const filler = `${'x'.repeat(99)}\n`;
		const db = home('big', {
			'gateway.log': `${START}\n${filler.repeat(Math.ceil(MAX_LOG_BYTES / 100) + 10)}${REPOINT}\n`,
		});
		const logs = readGatewayLogs(db);
		expect(logs.lines.map(l => l.kind)).toEqual(['repoint']);
		expect(logs.notes).toEqual(['gateway.log: only its last 16 MiB were read']);
	});
});
