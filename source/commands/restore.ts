/**
 * `hfx restore ARCHIVE (--to DIR | --home DIR) [--yes|--dry-run]` and `hfx restore --drill ARCHIVE`.
 * Restore: exit 0 all restored and verified, 1 partial (listed), 2 refused or nothing written.
 * Dry run (writes nothing): exit 0 it would drop nothing the live store has, 1 it would drop
 * sessions or messages (or cannot tell), 2 refused (a damaged archive, an unreadable target); per
 * chat, what a restart resumes now and after the restore (hfx diff's diff of the two stores).
 * Drill: exit 0 passed, 1 it found a problem (recorded), 2 it could not run.
 */
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import {type DrillResult, drillArchive} from '../backup/ops/drill.js';
import {progressSink} from '../backup/progress.js';
import {restoreArchive} from '../backup/restore/restore.js';
import {comparisonLines} from '../backup/restore/compare.js';
import {layoutLines} from '../backup/restore/layout.js';
import {type ExitCode, asRefusal, refusalLine} from '../errors.js';
import type {ChatDiff} from '../forensics/diff.js';
import {restorePreviewLines} from '../report/diff.js';
import {failIfAbandoned} from './shared/backup-root.js';
import {plural} from '../text/format.js';
import {type GlobalFlags, type Io, emit, guarded} from './context.js';
import type {RestoreResult} from '../backup/restore/types.js';
import {diffPair} from './shared/image-sides.js';

export type RestoreFlags = GlobalFlags & {archive: string; to?: string; yes: boolean; drill: boolean; dryRun?: boolean};

/** Typed confirmation on a terminal: true only when the operator types "restore". */
async function askOnTty(question: string): Promise<boolean> {
	const rl = readline.createInterface({input: process.stdin, output: process.stderr});
	try {
		const answer = await new Promise<string>(resolve => {
			rl.question(question, resolve);
		});
		return answer.trim() === 'restore';
	} finally {
		rl.close();
	}
}

function restoreJson(r: RestoreResult) {
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

function drillJson(r: DrillResult) {
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

function drillLines(r: DrillResult): string[] {
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

async function runDrill(flags: RestoreFlags, io: Io, bar: ReturnType<typeof progressSink>): Promise<ExitCode> {
	let r: DrillResult;
	try {
		r = await drillArchive({archive: flags.archive, onProgress: bar?.update});
	} finally {
		bar?.clear();
	}

	emit(io, flags, {json: () => drillJson(r), text: () => drillLines(r)});

	if (!r.ok) {
		io.err(
			refusalLine({
				file: r.archive,
				reason: `the restore drill failed (${r.problems[0]})`,
				next: 'do not rely on this backup; take a new one (hfx backup) and drill it',
			}),
		);
	}

	return r.exitCode;
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

function restoreLines(r: RestoreResult): string[] {
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

type ChatPreview = {diff: ChatDiff[]; problem: null} | {diff: null; problem: string} | null;

/**
 * A dry run's per-chat preview (hfx diff's own diff, commands/shared/image-sides.ts): the target's
 * root store now against the archive's (verified a moment ago, not verified twice). None without a
 * store at the target; a store hfx cannot read is said in words, and the dry run still answers.
 */
async function perChat(r: RestoreResult, flags: RestoreFlags): Promise<ChatPreview> {
	const live = path.join(r.target, 'state.db');
	if (!fs.existsSync(live) || !r.comparison.some(c => c.path === 'state.db')) {
		return null;
	}

	try {
		return {
			diff: (
				await diffPair(live, r.archive, {maxGapSeconds: flags.maxGapSeconds}, {verifiedManifest: r.verify.manifest})
			).diff.chats,
			problem: null,
		};
	} catch (error) {
		const refusal = asRefusal(error);
		if (!refusal) {
			throw error;
		}

		return {diff: null, problem: refusal.line()};
	}
}

function chatPreviewLines(p: ChatPreview): string[] {
	if (p === null) {
		return [];
	}

	return p.diff ? restorePreviewLines(p.diff) : [`  per chat: cannot tell (${p.problem})`];
}

async function runRestoreInto(
	target: string,
	flags: RestoreFlags,
	io: Io,
	bar: ReturnType<typeof progressSink>,
): Promise<ExitCode> {
	let r: RestoreResult;
	try {
		r = await restoreArchive({
			archive: flags.archive,
			target,
			mode: flags.to ? 'to' : 'home',
			yes: flags.yes,
			dryRun: flags.dryRun,
			confirm: process.stdin.isTTY && process.stderr.isTTY ? askOnTty : undefined,
			onProgress: bar?.update,
		});
	} finally {
		bar?.clear();
	}

	if (r.status === 'dry-run') {
		const chats = await perChat(r, flags);
		emit(io, flags, {
			json: () => ({...restoreJson(r), chats}),
			text: () => [...restoreLines(r).slice(0, -1), ...chatPreviewLines(chats), ...restoreLines(r).slice(-1)],
		});
		return r.exitCode;
	}

	emit(io, flags, {json: () => restoreJson(r), text: () => restoreLines(r)});

	if (r.exitCode !== 0) {
		io.err(
			refusalLine({
				file: r.target,
				reason: `the restore is partial (${[...r.failed.map(f => f.path), ...r.postProblems].slice(0, 3).join('; ')})`,
				next: `see the list above; the previous files are in ${r.preRestoreDir ?? 'place'}`,
			}),
		);
	}

	return r.exitCode;
}

export async function runRestore(flags: RestoreFlags, io: Io): Promise<ExitCode> {
	failIfAbandoned(io);
	return guarded(io, flags, async () => {
		const bar = progressSink();
		if (flags.drill) {
			return runDrill(flags, io, bar);
		}

		const target = flags.to ?? flags.home;
		if (!target) {
			io.err(
				refusalLine({
					file: flags.archive,
					reason: 'restore needs a target: --to DIR (any folder) or --home DIR (a Hermes root)',
					next: 'e.g. hfx restore ARCHIVE --home ~/.hermes',
				}),
			);
			return 2;
		}

		return runRestoreInto(target, flags, io, bar);
	});
}
