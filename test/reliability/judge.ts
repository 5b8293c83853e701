/**
 * Judges one run against its step: the exit it must give, one line on stderr for a refusal, no
 * stack trace and no "Error:" line anywhere, no hang. Returns the outcome measured and every
 * problem, each written as "expected …, got …" so the report shows it plainly.
 */
import type {RunResult, Step, StepExpect} from './types.js';

const STACK = /^\s+at .*\(/m;
const ERROR_PREFIX = /^(?:hfx: internal error|\w*Error:|Error \[)/m;
// Escape codes other than SGR colours (which NO_COLOR turns off anyway): cursor moves, screen clears, OSC.
const RAW_ESCAPE = /\u001B(?:\[[0-9;?]*[A-HJKSTfhlnsu]|\]|P|[@-Z\\^_])|[\u0007\u0008\u009B]/;

/** What a run ended with, in the report's words. */
export function measured(r: RunResult): string {
	if (r.timedOut) {
		return 'hang (killed by the suite)';
	}

	if (r.killedOnPurpose) {
		return `killed (${r.signal ?? `exit ${r.code}`})`;
	}

	if (r.signal) {
		return `died of ${r.signal}`;
	}

	return ({0: 'ok', 1: 'finding', 2: 'refused'} as Record<number, string>)[r.code ?? -1] ?? `exit ${r.code}`;
}

function exitProblem(expect: StepExpect, r: RunResult, got: string): string | null {
	if (r.timedOut) {
		return `expected ${expect}, got a hang (no exit within the timeout)`;
	}

	if (expect === 'killed') {
		// Ran to its end before the kill point: fine when it ended well.
		return r.killedOnPurpose || r.code === 0 || r.code === 1 ? null : `expected killed or a clean end, got ${got}`;
	}

	const allowed = ({'any-verdict': [0, 1], unsound: [1, 2], any: [0, 1, 2]} as Record<string, number[]>)[expect];
	if (allowed) {
		return allowed.includes(r.code ?? -1) && !r.signal
			? null
			: `expected ${expect} (exit ${allowed.join(' or ')}), got ${got}`;
	}

	return got === expect ? null : `expected ${expect}, got ${got}`;
}

function firstLine(text: string): string {
	return JSON.stringify(text.trim().split('\n')[0]?.slice(0, 200) ?? '');
}

export function judge(step: Step, r: RunResult): {got: string; problems: string[]} {
	const got = measured(r);
	const problems: string[] = [];
	const exit = exitProblem(step.expect, r, got);
	if (exit) {
		problems.push(`${exit}; stderr ${firstLine(r.stderr)}`);
	}

	if (STACK.test(r.stderr) || STACK.test(r.stdout)) {
		problems.push(`a stack trace: ${firstLine(r.stderr.split('\n').find(l => STACK.test(l)) ?? r.stdout)}`);
	} else if (ERROR_PREFIX.test(r.stderr)) {
		problems.push(
			`an error line beyond the refusal: ${firstLine(r.stderr.split('\n').find(l => ERROR_PREFIX.test(l)) ?? '')}`,
		);
	}

	if (r.code === 2 && r.stderr.trim().split('\n').length !== 1) {
		problems.push(`expected one line on stderr, got ${r.stderr.trim().split('\n').length}: ${firstLine(r.stderr)}`);
	}

	const text = step.expect === 'refused' || r.code === 2 ? r.stderr : `${r.stdout}\n${r.stderr}`;
	if (step.match && !r.timedOut && !r.killedOnPurpose && !step.match.test(text)) {
		problems.push(`expected output matching ${step.match}, got ${firstLine(text)}`);
	}

	const bad = step.notMatch?.exec(`${r.stdout}\n${r.stderr}`);
	if (bad) {
		const line = `${r.stdout}\n${r.stderr}`.split('\n').find(l => step.notMatch!.test(l)) ?? '';
		problems.push(`output must not match ${step.notMatch}, got ${JSON.stringify(line.slice(-220))}`);
	}

	if (!step.args.includes('--json') && !step.pty && RAW_ESCAPE.test(`${r.stdout}${r.stderr}`)) {
		problems.push('a raw terminal escape code reached the output');
	}

	const extra = step.check?.(r);
	if (extra) {
		problems.push(extra);
	}

	return {got, problems};
}
