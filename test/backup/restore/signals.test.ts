/**
 * A signal during a restore's final renames (issue 15, point 6): with the first member renamed
 * into place and the rest still staged (test pause `restore-renamed`), SIGINT, SIGTERM or SIGHUP
 * waits for the commit (ground/interrupts.ts critical section): every file of the home ends old or new,
 * never missing, no staged temp is left, and the process exits 128+N.
 */
import {spawn} from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {hfx, hfxJson} from '../../helpers/cli.js';
import {ROOT} from '../../helpers/writer.js';
import {cleanupTemps, makeHome, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

const sha = (file: string): string | null =>
	fs.existsSync(file) ? crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex') : null;

/** Every file under dir (relative path -> sha256), the pre-restore copies and the trail left out. */
function files(dir: string): Map<string, string | null> {
	const out = new Map<string, string | null>();
	for (const rel of fs.readdirSync(dir, {recursive: true}).map(String)) {
		if (!rel.startsWith('backups') && !rel.startsWith('hfx-audit') && fs.lstatSync(path.join(dir, rel)).isFile()) {
			out.set(rel, sha(path.join(dir, rel)));
		}
	}

	return out;
}

async function pausedRestore(
	archive: string,
	home: string,
): Promise<{child: ReturnType<typeof spawn>; exited: Promise<number | null>}> {
	const child = spawn(process.execPath, [path.join(ROOT, 'dist/hfx.js'), 'restore', archive, '--home', home, '--yes'], {
		env: {...process.env, NO_COLOR: '1', HFX_TEST_PAUSE_AT: 'restore-renamed', HFX_TEST_PAUSE_MS: '1500'},
		stdio: ['ignore', 'ignore', 'pipe'],
	});
	const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
	await new Promise<void>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error('never paused at restore-renamed')), 30_000);
		let err = '';
		child.stderr!.on('data', (d: Buffer) => {
			err += d.toString();
			if (err.includes('paused at restore-renamed')) {
				clearTimeout(timer);
				resolve();
			}
		});
	});
	return {child, exited};
}

/** A home changed after its backup: the archive, and every file's new (archive) and old (live) sha256. */
function homeAndArchive(tag: string) {
	const home = makeHome(tag);
	const out = tempDir(`${tag}-out`);
	expect(hfxJson(['backup', '--home', home.root, '-o', out]).code).toBe(0);
	const archive = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);
	// The new versions: the archive restored into a scratch folder.
	const scratch = path.join(tempDir(`${tag}-new`), 'h');
	expect(hfx(['restore', archive, '--to', scratch]).code).toBe(0);
	const fresh = files(scratch);
	// The old versions: the live home changed after the backup.
	fs.writeFileSync(path.join(home.root, 'config.yaml'), 'model: changed\n');
	fs.writeFileSync(path.join(home.root, 'SOUL.md'), '# changed soul\n');
	fs.writeFileSync(path.join(home.root, 'memories/MEMORY.md'), '# changed memory\n');
	return {root: home.root, archive, fresh, old: files(home.root)};
}

/** Every file the archive has is there, and is either its old or its new version. */
function expectOldOrNew(
	now: Map<string, string | null>,
	fresh: Map<string, string | null>,
	old: Map<string, string | null>,
): void {
	for (const [rel, newSha] of fresh) {
		const at = now.get(rel) ?? null;
		expect(at, `${rel} is missing`).not.toBeNull();
		expect([old.get(rel) ?? null, newSha], rel).toContain(at);
	}
}

describe("a signal during the restore's renames", () => {
	it(
		'SIGKILL (no handler runs): every file old or new, none missing; the ' +
			'next restore sweeps the staged temps and completes',
		async () => {
			const {root, archive, fresh, old} = homeAndArchive('sig-kill');
			const {child, exited} = await pausedRestore(archive, root);
			child.kill('SIGKILL');
			await exited;
			const now = files(root);
			expectOldOrNew(now, fresh, old);
			// Some files are new already, some still old (the pause came after the first rename).
			expect([...fresh].some(([rel, s]) => now.get(rel) === s && old.get(rel) !== s)).toBe(true);
			expect([...fresh].some(([rel, s]) => now.get(rel) !== s)).toBe(true);
			expect(hfx(['restore', archive, '--home', root, '--yes']).code).toBe(0);
			expect([...files(root).keys()].filter(n => n.endsWith('.partial'))).toEqual([]);
		},
	);

	it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
		'%s: every file old or new, none missing, no temp left; the restore ' +
			'finished, so it exits as restored (0), never 128+N',
		async signal => {
			const {root, archive, fresh, old} = homeAndArchive(`sig-${signal}`);
			const {child, exited} = await pausedRestore(archive, root);
			child.kill(signal);
			expect(await exited).toBe(0);

			const now = files(root);
			expectOldOrNew(now, fresh, old);

			expect([...now.keys()].filter(n => n.endsWith('.partial'))).toEqual([]);
			// The signal waited for the commit: everything is the archive's now.
			expect(now.get('config.yaml')).toBe(fresh.get('config.yaml'));
			expect(now.get('state.db')).toBe(fresh.get('state.db'));
		},
	);
});
