/**
 * The repair's way (issue #30 point 4), class 6 (crash windows): each check of `hfx repair` is made once and its
 * result passed down, so an interrupted write left in the audit trail is settled, or said unsettled, once per run;
 * and an operator's --donor is still planned and refused before anything is written, not even a reconciliation.
 * Each kind first leaves an apply's intent with no outcome (SIGKILLed paused after its intent).
 */
import fs from 'node:fs';
import path from 'node:path';
import {home} from '../fixtures.js';
import type {Fault, RunResult, Step} from '../types.js';
import {refused, repairWrites, step} from './kit.js';

/** `repair --apply --yes` SIGKILLed after its intent is in the trail: a write whose outcome was never recorded. */
/**
 * An apply SIGKILLed while it pauses after its intent: killed once it reached the pause, not once the trail exists.
 * appendAudit (store/audit-trail.ts) creates the trail, writes the line, then writes the head through a temp renamed
 * over it: killed at the file's existence, a run beside CI left an empty trail (both kinds below failed, "0
 * entries"); killed at the intent's line, the next left the head's temp behind (88 bytes; a later write sweeps it,
 * a refusal does not). The pause is when the head counts the intent and no temp is left.
 */
function interruptedApply(db: string, audit: string): Step {
	return step('killed', ['repair', '--apply', '--yes', '--db', db], {
		env: {HFX_TEST_PAUSE_AT: 'after-intent', HFX_TEST_PAUSE_MS: '20000'},
		kill: {signal: 'SIGKILL', when: () => pausedAfterIntent(audit), afterMs: 20_000},
	});
}

const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);

/** Whether the trail ends with a whole intent line that its head counts, with no head temp left. */
function pausedAfterIntent(audit: string): boolean {
	const dir = path.dirname(audit);
	const head = path.join(dir, 'hfx-audit.head');
	try {
		const text = fs.readFileSync(audit, 'utf8');
		const all = lines(audit);
		const last = JSON.parse(all.at(-1) ?? 'null') as {phase?: string} | null;
		const counted = (JSON.parse(fs.readFileSync(head, 'utf8')) as {entries?: number}).entries;
		const temps = fs.readdirSync(dir).some(name => name.startsWith('hfx-audit.head.tmp-'));
		return text.endsWith('\n') && last?.phase === 'intent' && counted === all.length && !temps;
	} catch {
		return false;
	}
}

/** The trail's first entry edited in place: its hash chain no longer verifies. */
function breakChain(audit: string): void {
	const [first, ...rest] = lines(audit);
	const entry = JSON.parse(first ?? '{}') as Record<string, unknown>;
	fs.writeFileSync(audit, `${[JSON.stringify({...entry, argv: ['edited']}), ...rest].join('\n')}\n`);
}

function saidOnce(r: RunResult): string | null {
	const said = `${r.stdout}\n${r.stderr}`.split('\n').filter(l => /not reconciled: the hash chain is broken/.test(l));
	return said.length === 1 ? null : `the unreconciled write is said ${said.length} times, not once`;
}

export const REPAIR_WAY: Fault[] = [
	{
		id: 'repair-way-broken-trail-said-once',
		cls: 6,
		outcome: 'ok',
		notes:
			'an apply SIGKILLed after its intent, then the trail edited: the next `repair --apply --yes` applies, ' +
			'and says once (not once per layer) that the interrupted write is not reconciled',
		async setup(t) {
			const h = await home(t.dir('home'));
			const audit = path.join(h.root, 'hfx-audit.jsonl');
			return {
				evidence: [h.root],
				mayWrite: repairWrites(h.db),
				steps: [
					interruptedApply(h.db, audit),
					step('ok', ['repair', '--apply', '--yes', '--db', h.db], {
						before: () => breakChain(audit),
						match: /now owns/,
						check: saidOnce,
					}),
				],
			};
		},
	},
	{
		id: 'repair-way-donor-refused-first',
		cls: 6,
		outcome: 'refused',
		notes:
			'an apply SIGKILLed after its intent, then `repair --apply --only X --donor Y --yes` naming no orphan: ' +
			'refused in one line from the one plan, before the interrupted write is reconciled (the trail unchanged)',
		async setup(t) {
			const h = await home(t.dir('home'));
			const audit = path.join(h.root, 'hfx-audit.jsonl');
			let before = '';
			return {
				evidence: [h.root],
				mayWrite: repairWrites(h.db),
				steps: [
					interruptedApply(h.db, audit),
					refused(
						['repair', '--apply', '--only', 'nosuchorphan', '--donor', 'nosuchdonor', '--yes', '--db', h.db],
						/--donor refused/,
						{
							before: () => {
								before = fs.readFileSync(audit, 'utf8');
							},
						},
					),
				],
				after: () =>
					fs.readFileSync(audit, 'utf8') === before && lines(audit).length === 1
						? null
						: `the trail changed on a refusal: ${lines(audit).length} entries`,
			};
		},
	},
];
