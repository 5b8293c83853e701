/**
 * `hfx repair`: a dry run by default (every write as a before/after table, the restart before
 * and after, the warnings; it writes nothing, not even an audit entry); `--apply` writes only when every precondition
 * holds; `--undo ENTRY`
 * puts back one applied repair. Exit 0 nothing to do or all adoptable applied and verified, 1 some
 * orphans refused (the rest applied) or, after a commit, a finding left (a restart still resumes
 * another row), 2 refused or error with nothing written (current Hermes' own repair-routing
 * failing on the store included: what it would adopt cannot be said).
 */
import readline from 'node:readline';
import {type ExitCode, FailClosed, refusalLine} from '../../ground/errors.js';
import {type ApplyOutcome, type Planned, applyRepair, computePlan} from '../../repair/apply.js';
import {auditPathFor} from '../../store/audit-trail.js';
import {confirmationFor, confirmationMatches} from '../../repair/plan/confirmation.js';
import {reconcileAudit} from '../../repair/write/reconcile.js';
import {resolveUndoEntry, undoRepair} from '../../repair/undo.js';
import type {AuditEntry} from '../../store/audit-trail.js';
import {type Preflight, preflight} from '../../store/open/preflight.js';
import {generationNotes, planLines, rulesNotes} from '../../report/repair/repair.js';
import {repairOutcomeJson, repairPlanJson} from '../../report/repair/repair-json.js';
import {plural} from '../../text/format.js';
import type {StoreLocation} from '../../store/locate.js';
import {type GlobalFlags, type Io, buildRulesOf, emit, guarded, locate} from '../context.js';

export type RepairFlags = GlobalFlags & {
	apply: boolean;
	only: string[];
	donor?: string;
	yes: boolean;
	undo?: string;
	argv: string[];
};

/** The installed build's rules (issue #27): the plan, and the re-read after an apply, judge by them. */
function installedRules(location: StoreLocation, flags: RepairFlags, io: Io) {
	return (ruleSet: Parameters<typeof buildRulesOf>[1]) => buildRulesOf(location, ruleSet, flags, io.env);
}

function prompt(question: string): Promise<string> {
	const rl = readline.createInterface({input: process.stdin, output: process.stderr});
	return new Promise(resolve => {
		rl.question(question, answer => {
			rl.close();
			resolve(answer.trim());
		});
	});
}

function outcomeLines(o: ApplyOutcome): string[] {
	const lines: string[] = [];
	if (o.result === 'applied') {
		for (const v of o.verification) {
			lines.push(
				v.ok
					? `✓ ${v.orphanId} now owns ${v.sessionKey}; a restart resumes ${v.restartResolvesTo}`
					: `✗ ${v.orphanId}: ${v.carriesKey ? 'carries the key' : 'does NOT carry the key'}; ` +
							`a restart still ` +
							`resumes ${v.restartResolvesTo ?? 'a new, empty session'}${v.why ? `: ${v.why}` : ''}`,
			);
		}

		if (o.next && o.verification.some(v => !v.ok)) {
			lines.push(`next: ${o.next}`);
		}
	} else if (o.reason && o.exitCode !== 2) {
		// A refusal (exit 2) is said once: its one line on stderr names the cause and the next step.
		lines.push(`${o.result === 'nothing-to-do' ? '✓' : '✗'} ${o.reason}`);
	}

	if (o.snapshotDir) {
		lines.push(`snapshot: ${o.snapshotDir}`);
	}

	if (o.audit) {
		lines.push(
			`audit entry ${o.audit.seq} ` +
				`in ${auditPathFor(o.audit.database)}` +
				`${o.result === 'applied' && o.audit.mode === 'apply' ? ` (undo with: hfx repair --undo ${o.audit.seq})` : ''}`,
		);
	}

	if (o.next && o.result !== 'applied' && (o.exitCode !== 2 || !o.reason)) {
		lines.push(`next: ${o.next}`);
	}

	return lines;
}

/** An apply's or undo's outcome, as JSON or lines; a refusal also gets its one line on stderr. */
function reportOutcome(outcome: ApplyOutcome, dbPath: string, flags: RepairFlags, io: Io, json: unknown): ExitCode {
	emit(io, flags, {json: () => json, text: () => outcomeLines(outcome)});

	if (outcome.exitCode === 2 && outcome.reason) {
		io.err(refusalLine({file: dbPath, reason: outcome.reason, next: outcome.next ?? 'see above'}));
	}

	return outcome.exitCode;
}

async function runUndo(
	dbPath: string,
	flags: RepairFlags,
	io: Io,
	log: (line: string) => void,
	target: AuditEntry,
): Promise<ExitCode> {
	// The trail is reconciled and the entry resolved already (runRepair): passed down, not done again.
	const outcome = await undoRepair({
		dbPath,
		entry: flags.undo!,
		target,
		reconciled: true,
		argv: flags.argv,
		yes: flags.yes,
		log,
		confirm: async entry => {
			const answer = await prompt(
				`Undo repair entry ${entry.seq} ` +
					`(${String((entry.adoptions as unknown[] | undefined)?.length ?? 0)} ` +
					`adoptions)? Type "undo" to confirm: `,
			);
			return answer === 'undo';
		},
	});
	return reportOutcome(outcome, dbPath, flags, io, repairOutcomeJson(outcome));
}

function dryRunLines(location: StoreLocation, planned: Planned, flags: RepairFlags): string[] {
	const dbPath = location.path;
	const {plan, analysis} = planned;
	const lines = [
		`hfx repair (dry run: nothing is written) · ${dbPath} · ` +
			`window ${flags.maxGapSeconds}s · plan ${planned.hash.slice(0, 16)}`,
		...generationNotes(location, planned),
		'',
	];
	if (plan.adoptions.length === 0 && plan.refused.length === 0 && analysis.repairRoutingCrash === null) {
		return [...lines, '✓ No gateway sessions are missing their routing identity.'];
	}

	lines.push(...planLines(planned), '');
	const manual = plan.adoptions[0]?.evidence === 'operator' ? plan.adoptions[0] : null;
	const selection = manual
		? ` --only ${manual.orphanId} --donor ${manual.donorId}`
		: flags.only.length > 0
			? ` ${flags.only.map(o => `--only ${o}`).join(' ')}`
			: '';
	lines.push(
		plan.adoptions.length > 0
			? (manual
					? 'Your adoption of 1 orphan is ready.'
					: `${plural(plan.adoptions.length, 'orphan')} can be adopted.`) +
					` ` +
					`Next: stop the gateway, then run: hfx repair --apply ` +
					`--db ${dbPath}${selection}  (a verified snapshot is taken first; every ` +
					`write is audited; undo with hfx repair --undo)`
			: `Nothing repair-routing would adopt; the refused orphans above need a ` +
					`decision by ` +
					`hand` +
					(plan.refused.some(o => o.candidateDonors.length > 0)
						? ': adopt one from a candidate donor with hfx repair --only ORPHAN --donor DONOR'
						: '') +
					`.`,
	);
	return lines;
}

/**
 * The dry run's plan (read-only), from the command's one preflight; an operator's --donor that cannot be taken is
 * refused here, before anything else.
 */
async function planFor(location: StoreLocation, flags: RepairFlags, io: Io, pre: Preflight): Promise<Planned> {
	const dbPath = location.path;
	const planned = await computePlan(dbPath, {
		owner: location.owner,
		maxGapSeconds: flags.maxGapSeconds,
		only: flags.only,
		donor: flags.donor,
		preflight: pre,
		buildRules: installedRules(location, flags, io),
	});

	// Checked once, with the plan (computePlan): an --apply --donor applies this same plan.
	const {refusal} = planned;
	if (refusal) {
		throw new FailClosed({file: dbPath, kind: refusal.kind, reason: refusal.reason, next: refusal.next, exitCode: 2});
	}

	return planned;
}

async function runDryRun(location: StoreLocation, flags: RepairFlags, io: Io, planned: Planned): Promise<ExitCode> {
	const dbPath = location.path;

	// A dry run writes nothing, not even to the audit trail: only applies and undos are recorded.
	const {analysis, plan} = planned;
	if (plan.unknownOnly.length > 0) {
		// As --apply refuses it: a mistyped --only must not read as "nothing to adopt".
		throw new FailClosed({
			file: dbPath,
			kind: 'no-such-orphan',
			reason: `--only names no adoptable orphan: ${plan.unknownOnly.join('; ')}`,
			next: 'list the adoptable orphans with: hfx repair',
			exitCode: 2,
		});
	}

	const code: ExitCode = plan.refused.length > 0 || analysis.repairRoutingCrash !== null ? 1 : 0;
	emit(io, flags, {
		json: () => repairPlanJson(location, planned, code),
		text: () => dryRunLines(location, planned, flags),
	});
	return code;
}

async function runApply(
	location: StoreLocation,
	flags: RepairFlags,
	io: Io,
	log: (line: string) => void,
	pre: Preflight,
	planned: Planned | null,
): Promise<ExitCode> {
	const dbPath = location.path;
	let shown: Planned | undefined;
	// The trail is reconciled already (runRepair), and an operator's --donor planned and checked: passed down.
	const outcome = await applyRepair({
		dbPath,
		preflight: pre,
		...(planned ? {planned} : {}),
		reconciled: true,
		buildRules: installedRules(location, flags, io),
		owner: location.owner,
		maxGapSeconds: flags.maxGapSeconds,
		only: flags.only,
		donor: flags.donor,
		argv: flags.argv,
		yes: flags.yes,
		log,
		onPlanned(planned) {
			shown = planned;
			if (!flags.json) {
				for (const line of [
					`hfx repair --apply · ${dbPath} · plan ${planned.hash.slice(0, 16)}`,
					`rules of Hermes ${planned.analysis.rulesLabel}`,
					...rulesNotes(planned.analysis),
					'',
					...planLines(planned),
				]) {
					io.out(line);
				}
			}
		},
		async confirm(planned) {
			const many = planned.plan.adoptions.length > 1;
			const a = planned.plan.adoptions[0]!;
			const question =
				a.evidence === 'operator'
					? `Adopt ${a.orphanId} from ${a.donorId}, your choice (repair-routing ` +
						`refuses it)? Type the orphan's random suffix and the donor's ` +
						`(${confirmationFor(a)}) to confirm: `
					: `Adopt ${a.orphanId}? Type its random suffix (${confirmationFor(a)}) to confirm: `;
			const answer = await prompt(
				many ? `Adopt ${planned.plan.adoptions.length} orphans? Type "yes" to confirm: ` : question,
			);
			return confirmationMatches(answer, planned.plan.adoptions);
		},
	});
	return reportOutcome(outcome, dbPath, flags, io, repairOutcomeJson(outcome, dbPath, shown));
}

export async function runRepair(flags: RepairFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, async () => {
		const location = locate(flags, io).stores[0]!;
		const dbPath = location.path;
		// Bad input (missing, not SQLite, 0-byte beside a WAL...) is refused here, before any check
		// or audit entry: nothing is written beside a file that is not a store. The one preflight of the
		// run: the plan is read from it (computePlan takes none of its own).
		const pre = preflight(dbPath);
		if (flags.donor !== undefined && flags.undo) {
			throw new FailClosed({
				file: dbPath,
				kind: 'usage',
				reason: '--donor chooses a donor for an adoption; --undo puts one back: not both',
				next: 'run hfx repair --undo ENTRY alone',
				exitCode: 2,
			});
		}

		// An operator's donor is checked read-only first: a refusal writes nothing, not even a reconciliation.
		const planned = flags.undo
			? null
			: flags.donor === undefined && flags.apply
				? null
				: await planFor(location, flags, io, pre);
		// A crash window of an earlier apply or undo (its intent recorded, its outcome not) is settled
		// first, so what follows sees it; the dry run only says so (it writes nothing).
		reconcileAudit({dbPath, argv: flags.argv, write: Boolean(flags.apply || flags.undo), warn: io.err});
		// An unknown entry is named as such, before any question of confirmation.
		const target = flags.undo ? resolveUndoEntry(dbPath, flags.undo) : null;

		const interactive = Boolean(process.stdin.isTTY);
		if ((flags.apply || flags.undo) && !flags.yes && !interactive) {
			io.err(
				refusalLine({
					file: dbPath,
					reason: 'a typed confirmation is needed and stdin is not a terminal',
					next: 'review the dry run (hfx repair), then re-run with --yes',
				}),
			);
			return 2;
		}

		const log = (line: string) => {
			if (!flags.json) {
				io.out(line);
			}
		};

		if (target) {
			return runUndo(dbPath, flags, io, log, target);
		}

		return flags.apply ? runApply(location, flags, io, log, pre, planned) : runDryRun(location, flags, io, planned!);
	});
}
