/**
 * What the TUI's repair flow needs from the repair module: a bound plan for one orphan, the live
 * precondition checks, the apply of exactly that plan, and the undo of an applied repair of the
 * audit trail (`hfx repair --undo SEQ`, the same guarded write).
 */
import {type ApplyOutcome, type Planned, applyRepair, computePlan} from '../../repair/apply.js';
import {type Check, holderChecks} from '../../repair/write/preconditions.js';
import {undoRepair, undoableEntries} from '../../repair/undo.js';
import {type AuditEntry, auditPathFor, readAudit} from '../../store/audit-trail.js';
import {ShmReader} from '../../store/files/shm.js';
import {storeBuildRules} from '../../store/places/store-build.js';
import type {RuleSet} from '../../forensics/generations.js';

export type RepairService = {
	/** With a donor: the operator's adoption of an orphan repair-routing refuses (hfx repair --donor). */
	plan: (orphanId: string, donorId?: string) => Promise<Planned>;
	checks: () => Check[];
	/** Applies the plan the operator saw (refused if the store moved since). */
	apply: (planned: Planned, log: (line: string) => void) => Promise<ApplyOutcome>;
	/** The audit trail's applied repairs that can be undone, newest first. */
	undoable?: () => AuditEntry[];
	/** Undoes the applied repair of entry `seq` (refused if any column it wrote changed since). */
	undo?: (seq: number, log: (line: string) => void) => Promise<ApplyOutcome>;
};

export function repairServiceFor(options: {
	dbPath: string;
	owner: string;
	maxGapSeconds: number;
	argv?: string[];
}): RepairService {
	// The installed build's rules, as `hfx repair` judges by them (issue #27).
	const buildRules = (ruleSet: RuleSet) => storeBuildRules(options.dbPath, ruleSet, {env: process.env});
	return {
		async plan(orphanId, donorId) {
			const reader = new ShmReader();
			try {
				return await computePlan(
					options.dbPath,
					{owner: options.owner, maxGapSeconds: options.maxGapSeconds, only: [orphanId], donor: donorId, buildRules},
					reader,
				);
			} finally {
				await reader.close();
			}
		},
		checks: () => holderChecks(options.dbPath),
		apply: async (planned, log) =>
			applyRepair({
				dbPath: options.dbPath,
				owner: options.owner,
				maxGapSeconds: options.maxGapSeconds,
				only: planned.plan.adoptions.map(a => a.orphanId),
				argv: options.argv ?? [
					'hfx',
					'(tui)',
					'repair',
					'--apply',
					...planned.plan.adoptions.flatMap(a =>
						a.evidence === 'operator' ? ['--only', a.orphanId, '--donor', a.donorId] : [],
					),
				],
				yes: true,
				confirm: async () => true,
				log,
				planned,
				buildRules,
			}),
		undoable: () => undoableEntries(readAudit(auditPathFor(options.dbPath))),
		// The TUI asked its own typed confirmation before this.
		undo: async (seq, log) =>
			undoRepair({
				dbPath: options.dbPath,
				entry: String(seq),
				argv: ['hfx', '(tui)', 'repair', '--undo', String(seq)],
				yes: true,
				confirm: async () => true,
				log,
			}),
	};
}
