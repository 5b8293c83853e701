/**
 * `hfx scan --json` streamed (issue #26): the real binary writes the document in pieces as it is
 * made, never as one string of the whole, and the bytes are exactly the whole-document string it
 * printed before (`safeJson(doc, 2)` and a newline), on the real-Hermes fixtures and on a store of
 * 3,000 keyless rows written by a second process. A closed pipe still ends it quietly. The head of the document
 * (`database`, `rules`) is out before the analysis runs: the `analysis` test pause holds it there while the test
 * reads what came.
 */
import {spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {safeJson} from '../../source/text/sanitize.js';
import {hfx} from '../helpers/cli.js';
import {ROOT, writtenStore} from '../helpers/writer.js';

const KEYLESS_ROWS = 3000;
/** 3,000 keyless rows with a message each: 300 telegram orphans and 2,700 local-surface rows repair-routing lists. */
const KEYLESS_SQL = [
	`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${KEYLESS_ROWS})`,
	'INSERT INTO sessions (id, source, session_key, started_at, last_activity_at, message_count)',
	"SELECT printf('20260801_%06d_keyless', i), CASE WHEN i % 10 = 0 THEN 'telegram' ELSE 'cli' END, NULL,",
	'1786000000 + i * 60, 1786000000 + i * 60 + 30, 1 FROM n',
].join(' ');
const MESSAGES_SQL =
	"INSERT INTO messages (session_id, role, content, timestamp) SELECT id, 'user', 'hello ' || id, started_at + 5 " +
	'FROM sessions';

/** Preloaded into the binary: the size of every write to stdout, one a line, in the file HFX_TEST_WRITES names. */
const WRITES_HOOK = `import fs from 'node:fs';
const file = process.env.HFX_TEST_WRITES;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
	fs.appendFileSync(file, Buffer.byteLength(chunk) + '\\n');
	return write(chunk, ...rest);
};
`;

const store = writtenStore('scan-stream');
let dir = '';

beforeAll(async () => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-scan-stream-'));
	fs.cpSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident'), path.join(dir, 'incident'), {recursive: true});
	fs.cpSync(path.join(ROOT, 'test/fixtures/hermes-generations/root'), path.join(dir, 'root'), {recursive: true});
	fs.writeFileSync(path.join(dir, 'writes-hook.mjs'), WRITES_HOOK);
	await store.writer.send({op: 'exec', sql: KEYLESS_SQL});
	await store.writer.send({op: 'exec', sql: MESSAGES_SQL});
});
afterAll(() => {
	fs.rmSync(dir, {recursive: true, force: true});
});

describe('hfx scan --json, streamed', () => {
	it('prints exactly the whole-document string, on the fixtures and on a store of 3,000 keyless rows', () => {
		const runs = [
			['--db', path.join(dir, 'incident/state.db')],
			['--home', path.join(dir, 'root')],
			['--db', store.db],
		];
		for (const args of runs) {
			const r = hfx(['scan', ...args, '--json']);
			expect(r.stderr, args.join(' ')).toBe('');
			expect(r.code, args.join(' ')).toBe(1);
			const doc = JSON.parse(r.stdout) as {exitCode: number};
			expect(doc.exitCode).toBe(1);
			expect(r.stdout === `${safeJson(doc, 2)}\n`, args.join(' ')).toBe(true);
		}
	});

	it('writes the document in pieces as it is made: no write holds the whole (1.5 MB) document', () => {
		const writes = path.join(dir, 'writes.txt');
		const r = hfx(['scan', '--db', store.db, '--json'], {
			env: {NODE_OPTIONS: `--import=${path.join(dir, 'writes-hook.mjs')}`, HFX_TEST_WRITES: writes},
		});
		expect(r.code).toBe(1);
		const doc = JSON.parse(r.stdout) as {summary: {listedRefusedLocal: number; orphans: number}};
		expect(doc.summary.listedRefusedLocal + doc.summary.orphans).toBe(KEYLESS_ROWS);
		const sizes = fs.readFileSync(writes, 'utf8').trim().split('\n').map(Number);
		expect(sizes.reduce((a, b) => a + b, 0)).toBe(Buffer.byteLength(r.stdout));
		expect(Buffer.byteLength(r.stdout)).toBeGreaterThan(1_000_000);
		expect(sizes.length).toBeGreaterThan(10);
		expect(Math.max(...sizes)).toBeLessThan(200_000);
	});

	it('sends the head of the document before the analysis runs (the analysis held by a test pause)', async () => {
		const child = spawn(process.execPath, [path.join(ROOT, 'dist/hfx.js'), 'scan', '--db', store.db, '--json'], {
			env: {...process.env, NO_COLOR: '1', HFX_TEST_PAUSE_AT: 'analysis', HFX_TEST_PAUSE_MS: '4000'},
		});
		let stdout = '';
		let stderr = '';
		let atPause: string | null = null;
		child.stdout.setEncoding('utf8').on('data', (d: string) => {
			stdout += d;
		});
		child.stderr.setEncoding('utf8').on('data', (d: string) => {
			stderr += d;
			if (stderr.includes('paused at analysis')) {
				// What was written before the pause is in the pipe by then: read it a second later, the analysis still held.
				setTimeout(() => {
					atPause ??= stdout;
				}, 1000);
			}
		});
		const code = await new Promise<number | null>(resolve => child.once('close', resolve));
		expect(stderr).toMatch(/^hfx-test: paused at analysis \(pid \d+\)\n$/);
		expect(code).toBe(1);
		const doc = JSON.parse(stdout) as {database: unknown; rules: unknown};
		expect(stdout).toBe(`${safeJson(doc, 2)}\n`);
		// Exactly the document's first two fields, nothing the analysis decides.
		const head = safeJson({database: doc.database, rules: doc.rules}, 2).replace(/\n\}$/, '');
		expect(atPause).toBe(head);
	}, 60_000);

	it('ends quietly when the reader closes the pipe (| head -c 100): the same exit, nothing on stderr', () => {
		const command = `"${process.execPath}" "${path.join(ROOT, 'dist/hfx.js')}" scan --db "${store.db}" --json`;
		const r = spawnSync(
			'bash',
			['-c', `${command} 2>"${dir}/err" | head -c 100 >/dev/null; echo "\${PIPESTATUS[0]}"`],
			{
				encoding: 'utf8',
				env: {...process.env, NO_COLOR: '1'},
				timeout: 60_000,
			},
		);
		expect(r.stdout.trim()).toBe('1');
		expect(fs.readFileSync(path.join(dir, 'err'), 'utf8')).toBe('');
	});
});
