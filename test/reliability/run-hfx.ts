/**
 * Runs the real binary (dist/hfx.js) in its own process group with a hard timeout: a run that
 * outlives it has its whole group killed with SIGKILL and is reported as a hang. A kill point
 * stops it on purpose (SIGKILL, or SIGINT as Ctrl-C sends it to the group) when its condition
 * holds. The environment is private: HOME and TMPDIR are the run's own folders, no HERMES_HOME.
 */
import {spawn} from 'node:child_process';
import path from 'node:path';
import type {RunResult, Step} from './types.js';

export const ROOT = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '../..');
export const CLI = path.join(ROOT, 'dist/hfx.js');

export type RunOptions = {timeoutMs: number; home: string; tmpdir: string};

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
	if (pid === undefined) {
		return;
	}

	try {
		process.kill(-pid, signal);
	} catch {
		// the group is gone
	}
}

function environment(step: Step, o: RunOptions): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {
		...process.env,
		NO_COLOR: '1',
		FORCE_COLOR: '0',
		HOME: o.home,
		TMPDIR: o.tmpdir,
		...step.env,
	};
	delete env.HERMES_HOME;
	if (step.env?.HERMES_HOME) {
		env.HERMES_HOME = step.env.HERMES_HOME;
	}

	return env;
}

const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

function commandOf(step: Step): string[] {
	const plain = [...(step.wrap ?? []), process.execPath, CLI, ...step.args];
	return step.pty ? ['script', '-qfec', plain.map(quote).join(' '), '/dev/null'] : plain;
}

/** Types `input` into a pseudo-terminal a while in (the TUI must be up), then closes it. */
function feed(child: ReturnType<typeof spawn>, step: Step): void {
	if (!step.pty) {
		child.stdin!.end(step.input ?? '');
		return;
	}

	const typed = setTimeout(() => child.stdin!.write(step.input ?? ''), 2500);
	const closed = setTimeout(() => child.stdin!.end(), 6000);
	child.once('close', () => {
		clearTimeout(typed);
		clearTimeout(closed);
	});
}

/** One step, to its end (or its timeout). */
export function runHfx(step: Step, o: RunOptions): Promise<RunResult> {
	const command = commandOf(step);
	const started = Date.now();
	const child = spawn(command[0]!, command.slice(1), {
		detached: true,
		env: environment(step, o),
		stdio: ['pipe', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (d: Buffer) => {
		stdout += d.toString();
	});
	child.stderr.on('data', (d: Buffer) => {
		stderr += d.toString();
	});
	child.stdin.on('error', () => undefined);
	feed(child, step);
	let timedOut = false;
	let killedOnPurpose = false;
	const timer = setTimeout(() => {
		timedOut = true;
		killGroup(child.pid, 'SIGKILL');
	}, o.timeoutMs);
	const kill = step.kill;
	const poll = kill
		? setInterval(() => {
				if ((kill.when?.(stdout) ?? false) || (kill.afterMs !== undefined && Date.now() - started >= kill.afterMs)) {
					killedOnPurpose = true;
					killGroup(child.pid, kill.signal);
					clearInterval(poll);
				}
			}, 1)
		: undefined;
	return new Promise(resolve => {
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			clearInterval(poll);
			// Anything the run left in its group (a child process) goes too.
			killGroup(child.pid, 'SIGKILL');
			resolve({args: step.args, code, signal, stdout, stderr, ms: Date.now() - started, timedOut, killedOnPurpose});
		});
	});
}
