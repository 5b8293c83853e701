/**
 * The TUI's way to run a backup command (source/backup/ops/run-cli.ts): `hfx <args> --json` in a
 * child process (the real binary, hence the system tier), its progress events streamed back, its
 * exit code and JSON returned; a refusal comes back as its exit code and its one stderr line; an
 * aborted run rejects. (A child that prints nothing stopped at its idle bound: test/store/hangs.test.ts.)
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {runCli} from '../../../source/backup/ops/run-cli.js';
import {cleanupTemps, makeHome, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

describe('runCli', () => {
	// Moved from test/commands/backups/backup.test.ts.
	it("runCli (the TUI's way) streams the child's progress and returns its JSON", async () => {
		const home = makeHome('cli-api');
		const events: string[] = [];
		const r = await runCli(['backup', '--quick', '--home', home.root, '--label', 'tui'], {
			onProgress: e => events.push(`${e.phase}:${e.label}`),
		});
		expect(r.code).toBe(0);
		expect(r.stderr).toEqual([]);
		expect((r.json as {verified: boolean}).verified).toBe(true);
		expect(events).toContain('copy:state.db');
	});

	it('a refusal: exit 2 and its one line, progress lines kept apart', async () => {
		const dir = tempDir('cli-refusal');
		const missing = path.join(dir, 'nowhere.zip');
		const events: unknown[] = [];
		const r = await runCli(['verify', missing], {onProgress: e => events.push(e)});
		expect(r.code).toBe(2);
		expect(r.stderr).toHaveLength(1);
		expect(r.stderr[0]).toContain(missing);
		expect(events).toEqual([]);
		expect(fs.readdirSync(dir)).toEqual([]);
	});

	it('an aborted run rejects', async () => {
		const home = makeHome('cli-abort');
		const controller = new AbortController();
		const running = runCli(['backup', '--home', home.root, '-o', tempDir('cli-abort-out')], {
			signal: controller.signal,
		});
		controller.abort();
		await expect(running).rejects.toThrow(/abort/i);
	});
});
