/**
 * The real hfx run in the background with its own TMPDIR: every name seen under that TMPDIR (and under `also`, an
 * output folder) while it ran, sampled every 2 ms, so a private copy made and removed within the run is still seen.
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {ROOT} from './writer.js';

export type WatchedRun = {code: number | null; json: any; stderr: string; seenInTmp: string[]; seenInAlso: string[]};

/** Every path under `dir`, relative to it (a folder removed while it is walked is skipped). */
export function namesUnder(dir: string): string[] {
	try {
		return fs.readdirSync(dir, {recursive: true}).map(String);
	} catch {
		return [];
	}
}

export async function hfxWatchingTmp(args: readonly string[], tmp: string, also?: string): Promise<WatchedRun> {
	const child = spawn(process.execPath, [path.join(ROOT, 'dist/hfx.js'), ...args], {
		env: {...process.env, NO_COLOR: '1', TMPDIR: tmp},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (d: Buffer) => {
		stdout += d.toString();
	});
	child.stderr.on('data', (d: Buffer) => {
		stderr += d.toString();
	});
	const seenInTmp = new Set<string>();
	const seenInAlso = new Set<string>();
	let done = false;
	const exit = new Promise<number | null>(resolve => child.once('close', resolve)).finally(() => {
		done = true;
	});
	while (!done) {
		for (const name of namesUnder(tmp)) {
			seenInTmp.add(name);
		}

		for (const name of also ? namesUnder(also) : []) {
			seenInAlso.add(name);
		}

		await new Promise(resolve => setTimeout(resolve, 2));
	}

	const code = await exit;
	return {code, json: JSON.parse(stdout), stderr, seenInTmp: [...seenInTmp], seenInAlso: [...seenInAlso]};
}
