/**
 * What `hermes --version` says of the CLI on disk (hermes-incidents §3.1: e.g. `hermes-agent 0.18.0
 * (v2026.7.1-368-g5b04a024a)`, `Hermes v0.21.4 (main @ 10e7de79a9)`). Asked only when the operator
 * says so (`--ask-hermes`): the `hermes` on PATH, no shell, a 5 s timeout, its output capped. It
 * describes the CLI installed, not necessarily the process that wrote the store.
 */
import {spawnSync} from 'node:child_process';
import type {HermesBuild} from '../../forensics/routing/build-rules.js';

const TIMEOUT_MS = 5000;

/** The version and commit in one `hermes --version` text; null when it names neither. */
export function parseHermesVersion(text: string): {version: string | null; sha: string | null} | null {
	const first = text.split('\n').find(l => l.trim() !== '') ?? '';
	const version = /\bv?(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.]+)?)/.exec(first)?.[1] ?? null;
	const sha = /(?:-g|@\s*)([0-9a-f]{7,40})\b/.exec(first)?.[1] ?? null;
	return version === null && sha === null ? null : {version, sha};
}

/** Runs `hermes --version`; the build it names, or why none (one phrase for the decided-by words). */
export function askHermesVersion(env: NodeJS.ProcessEnv): {build: HermesBuild | null; note: string} {
	// Its own process group, so what it started dies with it when it does not answer in time.
	const r = spawnSync('hermes', ['--version'], {
		env,
		timeout: TIMEOUT_MS,
		maxBuffer: 64 * 1024,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
		shell: false,
		detached: true,
	} as Parameters<typeof spawnSync>[2] & {encoding: 'utf8'});
	if (r.pid && (r.error || r.signal)) {
		try {
			process.kill(-r.pid, 'SIGKILL');
		} catch {
			// The group is gone already.
		}
	}

	if (r.error) {
		const code = (r.error as NodeJS.ErrnoException).code;
		return {
			build: null,
			note:
				code === 'ENOENT'
					? '`hermes --version`: no hermes on PATH'
					: code === 'ETIMEDOUT'
						? `\`hermes --version\` gave no answer in ${TIMEOUT_MS / 1000} s`
						: `\`hermes --version\` could not run (${code ?? 'error'})`,
		};
	}

	const parsed = r.status === 0 ? parseHermesVersion(`${r.stdout}`) : null;
	if (parsed === null) {
		return {
			build: null,
			note:
				r.status === 0 ? '`hermes --version` named no version' : `\`hermes --version\` exited ${r.status ?? r.signal}`,
		};
	}

	return {build: {...parsed, from: '`hermes --version` (the CLI on PATH, maybe not the running gateway)'}, note: ''};
}
