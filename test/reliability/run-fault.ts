/**
 * Runs one fault kind: for each run, its setup, a snapshot of the evidence, its steps with the real
 * binary, a second snapshot, the temp folder left behind, and the fault's own after-check. A setup
 * that throws is a failure of the fault (never silently skipped).
 */
import {changed, snapshot, type Snapshot} from './evidence.js';
import {judge} from './judge.js';
import {runHfx} from './run-hfx.js';
import {leftIn, tempSpace, type OwnedSpace} from './temp-space.js';
import type {Fault, FaultReport, RunResult, Scene} from './types.js';

/** `maxRuns` caps a looped fault's runs (the CI-sized part in `npm test`). */
export type SuiteOptions = {long: boolean; timeoutMs: number; maxRuns?: number};

type RunOutcome = {got: string[]; problems: string[]; bytes: number};

async function runSteps(scene: Scene, space: OwnedSpace, o: SuiteOptions): Promise<RunOutcome & {before: Snapshot}> {
	const got: string[] = [];
	const problems: string[] = [];
	const pending: Array<Promise<void>> = [];
	let before = snapshot(scene.evidence);
	for (const [i, step] of scene.steps.entries()) {
		await step.before?.();
		if (i === (scene.measureFrom ?? 0)) {
			before = snapshot(scene.evidence);
		}

		const finish = (r: RunResult): void => {
			const j = judge(step, r);
			got[i] = j.got;
			problems.push(...j.problems.map(p => `hfx ${step.args.join(' ')}: ${p}`));
		};

		const running = runHfx(step, {timeoutMs: o.timeoutMs, home: space.home, tmpdir: space.tmpdir}).then(finish);
		if (step.concurrent) {
			pending.push(running);
		} else {
			await running;
			await Promise.all(pending.splice(0));
		}
	}

	await Promise.all(pending);
	return {got, problems, bytes: 0, before};
}

async function runOnce(fault: Fault, run: number, o: SuiteOptions): Promise<RunOutcome> {
	// Not named for the fault: a path in the output must not match what a step looks for.
	const space = tempSpace(`run${run}`);
	try {
		let scene: Scene;
		try {
			scene = await fault.setup(space, run);
		} catch (error) {
			return {got: ['setup failed'], problems: [`setup failed: ${(error as Error).message}`], bytes: 0};
		}

		const out = await runSteps(scene, space, o);
		const diff = changed(out.before, snapshot(scene.evidence), scene.mayWrite);
		if (diff.bytes > 0) {
			out.problems.push(`evidence changed (${diff.bytes} bytes): ${diff.paths.slice(0, 4).join(', ')}`);
		}

		// A SIGKILLed last step cannot clean up after itself (the next run sweeps: a later step proves it).
		const lastKilled = out.got.at(-1)?.includes('SIGKILL') ?? false;
		const debris = leftIn(space.tmpdir);
		if (debris.length > 0 && !lastKilled) {
			out.problems.push(`left in the temp folder (TMPDIR): ${debris.slice(0, 4).join(', ')}`);
		}

		const after = scene.after?.();
		if (after) {
			out.problems.push(after);
		}

		// The run's folder is named once ($RUN), so a failure reads as its cause, not as a temp path.
		return {...out, problems: out.problems.map(p => p.replaceAll(space.base, '$RUN')), bytes: diff.bytes};
	} finally {
		await space.dispose();
	}
}

export async function runFault(fault: Fault, o: SuiteOptions): Promise<FaultReport> {
	const started = Date.now();
	const runs = Math.min(o.maxRuns ?? Infinity, o.long ? (fault.longRuns ?? (fault.runs ?? 1) * 5) : (fault.runs ?? 1));
	const failures: string[] = [];
	const seen = new Map<string, number>();
	let bytes = 0;
	for (let run = 0; run < runs; run++) {
		const r = await runOnce(fault, run, o);
		bytes += r.bytes;
		const got = r.got.join(' → ');
		seen.set(got, (seen.get(got) ?? 0) + 1);
		for (const p of r.problems) {
			failures.push(runs > 1 ? `run ${run + 1}: ${p}` : p);
		}
	}

	const got = [...seen.entries()].map(([g, n]) => (seen.size > 1 ? `${g} ×${n}` : g)).join('; ');
	return {
		id: fault.id,
		cls: fault.cls,
		outcome: fault.outcome,
		runs,
		got,
		evidenceBytesChanged: bytes,
		failures,
		notes: fault.notes ?? '',
		ms: Date.now() - started,
	};
}
