/**
 * `hfx backup [--home ROOT] [-o PATH] [--keep N] [--dry-run] [--json]` and
 * `hfx backup --quick [--label L] [--home ROOT | --profile NAME | --db PATH]`.
 * Exit 0 everything included (and verified), 1 something was skipped (listed; the archive is
 * kept and nothing is pruned), 2 refused: another backup is running, no space, nothing written.
 */
import path from 'node:path';
import {backupJson, humanBackup, quickJson, quickLines} from '../../report/backups/backup.js';
import {createBackup} from '../../backup/create/backup.js';
import {progressSink} from '../../backup/progress.js';
import {takeQuickSnapshot} from '../../backup/create/snapshot.js';
import type {ExitCode} from '../../ground/errors.js';
import {type GlobalFlags, type Io, emit, guarded} from '../context.js';
import {failIfAbandoned, resolveRoot} from '../shared/backup-root.js';

export type BackupFlags = GlobalFlags & {
	output?: string;
	keep?: number;
	dryRun: boolean;
	quick: boolean;
	label?: string;
};

export async function runBackup(flags: BackupFlags, io: Io): Promise<ExitCode> {
	failIfAbandoned(io);
	return guarded(io, flags, async () => {
		const root = resolveRoot(flags, io);
		const bar = progressSink();
		try {
			if (flags.quick) {
				const home = flags.profile && flags.profile !== 'default' ? path.join(root, 'profiles', flags.profile) : root;
				const r = await takeQuickSnapshot({
					home: flags.db ? undefined : home,
					dbPath: flags.db,
					label: flags.label,
					onProgress: bar?.update,
				});
				bar?.clear();
				emit(io, flags, {json: () => quickJson(r), text: () => quickLines(r)});
				return r.exitCode;
			}

			const r = await createBackup({
				root,
				output: flags.output,
				keep: flags.keep,
				dryRun: flags.dryRun,
				onProgress: bar?.update,
			});
			bar?.clear();
			emit(io, flags, {json: () => backupJson(r), text: () => humanBackup(r)});

			return r.exitCode;
		} finally {
			bar?.clear();
		}
	});
}
