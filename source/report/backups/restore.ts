/**
 * What `hfx restore` prints: a restore's (or a dry run's) text lines and per-chat preview, a
 * drill's verdict, and their --json documents.
 */
import path from 'node:path';
import type {DrillResult} from '../../backup/ops/drill.js';
import {comparisonLines} from '../../backup/restore/compare.js';
import {layoutLines} from '../../backup/restore/layout.js';
import type {RestoreResult} from '../../backup/restore/types.js';
import type {ChatDiff} from '../../forensics/analysis/diff.js';
import {plural} from '../../text/format.js';
import {restorePreviewLines} from '../analysis/diff.js';

export function restoreJson(r: RestoreResult) {
	return {
		archive: r.archive,
		target: r.target,
		status: r.status,
		exitCode: r.exitCode,
		restored: r.restored,
		failed: r.failed,
		preRestoreDir: r.preRestoreDir,
		keptAside: r.keptAside,
		postProblems: r.postProblems,
		databases: r.databases,
		audit: r.audit,
		comparison: r.comparison,
		root: r.mapping.root,
		mapping: r.mapping.entries,
		notRestored: {outsideRoot: r.layout.outside, runtimeState: r.layout.runtime, sidecars: r.layout.sidecars},
		folded: r.layout.folded,
		checked: r.checks,
		ms: Math.round(r.ms),
	};
}

export function drillJson(r: DrillResult) {
	return {
		archive: r.archive,
		ok: r.ok,
		exitCode: r.exitCode,
		restored: r.restore?.restored.length ?? 0,
		scans: r.scans,
		problems: r.problems,
		recorded: r.recorded,
		ms: Math.round(r.ms),
	};
}

export function drillLines(r: DrillResult): string[] {
	const lines = [`${r.ok ? '✓ DRILL PASSED' : '✗ DRILL FAILED'}  ${r.archive}`];
	if (r.restore) {
		lines.push(
			`  restored ${plural(r.restore.restored.length, 'file')} into a scratch ` +
				`folder (removed again): ${r.restore.checks.members}; databases: ` +
				`integrity_check, ${r.restore.checks.databases}` +
				`${r.restore.postProblems.length > 0 ? ' EXCEPT the problems below' : ''}`,
		);
	}

	// A scan that failed is one of the problems below: said once.
	for (const s of r.scans.filter(x => x.error === null)) {
		lines.push(
			s.unreadable
				? `  ! ${s.path} (${s.label}): restored byte for byte and checked as every ` +
						`database, but hfx cannot scan it: ${s.unreadable}`
				: `  ${s.ok ? '✓' : '✗'} ${s.path} ` +
						`(${s.label}): ${plural(s.sessions ?? 0, 'session')}` +
						`${s.expectedSessions === null ? '' : ` (manifest: ${s.expectedSessions})`}, ` +
						`${plural(s.orphans ?? 0, 'orphan')}, ${plural(s.rollbackRisks ?? 0, 'rollback risk')}` +
						`${s.healthy ? ', healthy' : ' (findings in the data itself, as in the live store: hfx scan shows them)'}`,
		);
	}

	lines.push(...r.problems.map(p => `  ✗ ${p}`));
	lines.push(
		r.recorded
			? `  recorded in ${path.join(path.dirname(r.archive), 'hfx-records.jsonl')}`
			: '  NOTE: the outcome could not be recorded (the folder is not writable)',
	);
	return lines;
}

function dryRunLines(r: RestoreResult): string[] {
	return [
		`restore --dry-run ${r.archive} → ${r.target}: ` +
			`verified ${r.layout.sidecars.length > 0 ? 'sound but for its sidecars (below)' : 'sound'}; ` +
			`nothing was written`,
		...layoutLines(r.mapping, r.layout, r.target).map(l => `  ${l}`),
		...(r.comparison.length === 0
			? ['  the archive holds no Hermes store to compare']
			: comparisonLines(r.comparison).map(l => `  ${l}`)),
		r.exitCode === 0
			? 'Next: the restore drops nothing the live store has'
			: 'Next: export what would be dropped first (hfx sessions), or take a new backup and restore that',
	];
}

export function restoreLines(r: RestoreResult): string[] {
	if (r.status === 'dry-run') {
		return dryRunLines(r);
	}

	const lines = [
		`${r.status === 'restored' ? '✓ RESTORED' : '✗ PARTIAL'}  ${r.archive} → ${r.target}`,
		...layoutLines(r.mapping, r.layout, r.target).map(l => `  ${l}`),
		`  ${plural(r.restored.length, 'file')} restored: ${r.checks.members}; credentials and databases mode 0600`,
	];
	for (const d of r.databases) {
		lines.push(
			`  ${d.ok ? '✓' : '✗'} ${d.path}: ` +
				`integrity_check ${d.integrity[0]}, ` +
				(d.counts.sessions === undefined
					? plural(Object.keys(d.counts).length, 'table')
					: `${plural(d.counts.sessions, 'session')}, ${plural(d.counts.messages ?? 0, 'message')}`) +
				`${d.ok ? `, ${r.checks.databases}` : ''}`,
		);
	}

	if (r.preRestoreDir) {
		lines.push(`  the files found there before (state.db, -wal, -shm as found) are kept in ${r.preRestoreDir}`);
	}

	// Said as done once the restore is (no "would DROP" after the fact); a partial one as it was planned.
	lines.push(...comparisonLines(r.comparison, r.status === 'restored').map(l => `  ${l}`));
	for (const a of r.audit.filter(x => x.seq !== null)) {
		lines.push(
			`  audit ` +
				`trail ${a.trail}: ` +
				`${a.keptLive ? "the live trail kept (the archive's older copy was not restored); " : ''}this ` +
				`restore is entry ${a.seq}`,
		);
	}

	lines.push(...r.failed.map(f => `  ✗ not restored: ${f.path} (${f.reason})`), ...r.postProblems.map(p => `  ✗ ${p}`));
	lines.push(
		r.exitCode === 0
			? 'Next: start the gateway; hfx scan shows the restored state'
			: `Next: the previous files are ` +
					`in ${r.preRestoreDir ?? '(none were replaced)'}; fix the cause above ` +
					`and restore again`,
	);
	return lines;
}

export type ChatPreview = {diff: ChatDiff[]; problem: null} | {diff: null; problem: string} | null;

export function chatPreviewLines(p: ChatPreview): string[] {
	if (p === null) {
		return [];
	}

	return p.diff ? restorePreviewLines(p.diff) : [`  per chat: cannot tell (${p.problem})`];
}

/** `hfx restore --dry-run --json`: the restore's document and the per-chat preview. */
export function restoreDryRunJson(r: RestoreResult, chats: ChatPreview) {
	return {...restoreJson(r), chats};
}
