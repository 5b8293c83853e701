/**
 * Staging a restore's files (source/backup/restore/stage.ts): the members of a real zip (Hermes'
 * layout, read through the restore's own source) written beside their destinations under temp
 * names, checked against what the archive says of them, with their restored modes (and, as root,
 * the target's owner); any mismatch or write failure a refusal, every temp file reported for removal.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {planTargets} from '../../../source/backup/restore/refusals.js';
import {openSource} from '../../../source/backup/restore/source.js';
import {stageAll} from '../../../source/backup/restore/stage.js';
import type {PlannedMember, Source} from '../../../source/backup/restore/types.js';
import {sha256} from '../../../source/ground/crypto.js';
import {FailClosed} from '../../../source/ground/errors.js';
import type {ProgressEvent} from '../../../source/backup/progress.js';
import {cleanupTemps, craftZip, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

const FILES: Record<string, string> = {
	'state.db': 'SQLite format 3\0 (not checked here)',
	'config.yaml': 'model: hermes-3\n',
	'.env': 'KEY=x\n',
	'memories/MEMORY.md': '# memory\n',
};

/** A Hermes zip of FILES (modes 0644) opened as a restore's source, and its plan onto `target`. */
async function planned(target: string): Promise<{source: Source; plan: PlannedMember[]}> {
	const archive = path.join(tempDir('stage-zip'), 'a.zip');
	fs.writeFileSync(archive, craftZip(Object.entries(FILES).map(([name, text]) => ({name, data: Buffer.from(text)}))));
	const source = await openSource(archive, null);
	return {source, plan: planTargets(archive, target, source.members)};
}

async function staging(target: string, edit: (plan: PlannedMember[]) => void = () => {}) {
	const {source, plan} = await planned(target);
	edit(plan);
	const stagedFiles: string[] = [];
	const createdDirs: string[] = [];
	const progress: ProgressEvent[] = [];
	try {
		const staged = await stageAll(source, plan, target, stagedFiles, createdDirs, p => progress.push(p));
		return {staged, plan, stagedFiles, createdDirs, progress};
	} finally {
		source.close();
	}
}

describe('stageAll', () => {
	it('writes each member beside its destination under a temp name, with its restored mode', async () => {
		const target = path.join(tempDir('stage'), 'home');
		const {staged, plan, stagedFiles, createdDirs, progress} = await staging(target);
		expect([...staged.keys()].sort()).toEqual(Object.keys(FILES).sort());
		expect(stagedFiles.sort()).toEqual([...staged.values()].sort());
		expect(createdDirs).toEqual([target, path.join(target, 'memories')]);
		for (const [rel, temp] of staged) {
			const dest = path.join(target, rel);
			expect(path.dirname(temp)).toBe(path.dirname(dest));
			expect(path.basename(temp)).toMatch(
				new RegExp(`^\\.${path.basename(dest).replaceAll('.', '\\.')}\\.hfx-p${process.pid}\\.[0-9a-f]{16}\\.partial$`),
			);
			expect(fs.readFileSync(temp, 'utf8')).toBe(FILES[rel]);
			expect(fs.existsSync(dest)).toBe(false);
		}

		const mode = (rel: string) => fs.statSync(staged.get(rel)!).mode & 0o777;
		// A database and a credential are 0600 whatever the archive says; other files keep theirs.
		expect([mode('state.db'), mode('.env'), mode('config.yaml'), mode('memories/MEMORY.md')]).toEqual([
			0o600, 0o600, 0o644, 0o644,
		]);
		// No sha256 in the archive: each member keeps the staged bytes' one, for the read-back.
		for (const p of plan) {
			expect(p.m.sha256).toBe(sha256().update(FILES[p.m.path]!).digest('hex'));
		}

		const total = Object.values(FILES).reduce((a, t) => a + Buffer.byteLength(t), 0);
		expect(progress.at(-1)).toMatchObject({phase: 'extract', done: total, total});
	});

	it('a member whose bytes differ from what the archive says is refused as changed under us', async () => {
		const target = tempDir('stage-crc');
		let error: unknown;
		const stagedFiles: string[] = [];
		const {source, plan} = await planned(target);
		plan.find(p => p.m.path === 'config.yaml')!.m.crc32 = '00000000';
		try {
			await stageAll(source, plan, target, stagedFiles, []);
		} catch (e) {
			error = e;
		} finally {
			source.close();
		}

		expect(error).toBeInstanceOf(FailClosed);
		expect((error as FailClosed).toJSON()).toEqual({
			file: 'config.yaml',
			kind: 'changed-during-restore',
			reason:
				'the member read back while restoring differs from the verified archive (its bytes: the archive ' +
				'changed under us?); nothing was written',
			next: 'verify the archive again (hfx verify) and retry',
		});
		// Every temp file made so far is handed back for removal.
		expect(stagedFiles.length).toBeGreaterThan(0);
		expect(stagedFiles.every(f => f.endsWith('.partial'))).toBe(true);
	});

	it('a member of another size says both sizes', async () => {
		const target = tempDir('stage-size');
		const error = await staging(target, plan => {
			plan.find(p => p.m.path === '.env')!.m.size = 99;
		}).then(
			() => null,
			(e: unknown) => e as FailClosed,
		);
		expect(error?.reason).toContain('(6 bytes, 99 expected: the archive changed under us?)');
	});

	it('a failed write is stage-failed in the errno words, never a stack', async () => {
		const root = tempDir('stage-enotdir');
		// memories is a file: the staged memories/MEMORY.md cannot be created under it.
		const {source, plan} = await planned(root);
		fs.writeFileSync(path.join(root, 'memories'), '');
		const error = await stageAll(source, plan, root, [], []).then(
			() => null,
			(e: unknown) => e as FailClosed,
		);
		source.close();
		expect(error).toBeInstanceOf(FailClosed);
		expect(error!.toJSON()).toEqual({
			file: root,
			kind: 'stage-failed',
			reason:
				'staging the restored files failed (ENOTDIR: a part of the path is a file, not a folder); the staged ' +
				'files were removed; nothing was written',
			next: 'check the path: every part before the last must be a folder, then run the restore again',
		});
	});

	it.runIf(process.getuid?.() === 0)("as root, the staged files and new folders get the target's owner", async () => {
		const target = tempDir('stage-owner');
		fs.chownSync(target, 4321, 4321);
		const {staged, createdDirs} = await staging(target);
		for (const f of [...staged.values(), ...createdDirs]) {
			expect([fs.statSync(f).uid, fs.statSync(f).gid]).toEqual([4321, 4321]);
		}
	});
});
