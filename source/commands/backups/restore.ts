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
import {type DrillResult, drillArchive} from '../../backup/ops/drill.js';
import {progressSink} from '../../backup/progress.js';
import {restoreArchive} from '../../backup/restore/restore.js';
import {type ExitCode, asRefusal, refusalLine} from '../../ground/errors.js';
import {
	type ChatPreview,
	chatPreviewLines,
	drillJson,
	drillLines,
	restoreDryRunJson,
	restoreJson,
	restoreLines,
} from '../../report/backups/restore.js';
import {failIfAbandoned} from '../shared/backup-root.js';
import {type GlobalFlags, type Io, emit, guarded} from '../context.js';
import type {RestoreResult} from '../../backup/restore/types.js';
import {diffPair} from '../shared/image-sides.js';

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
			json: () => restoreDryRunJson(r, chats),
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
