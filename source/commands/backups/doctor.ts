/**
 * `hfx doctor [--home ROOT] [-o DIR] [--json]`: will the agent's memory survive a restart, a
 * container rebuild? Exit 0 nothing to warn about, 1 any warning, 2 could not run.
 */
import {examineHome} from '../../backup/ops/doctor.js';
import type {ExitCode} from '../../ground/errors.js';
import {backupDirs, failIfAbandoned, resolveRoot} from '../shared/backup-root.js';
import {type GlobalFlags, type Io, emit, guarded} from '../context.js';
import {doctorJson, humanDoctor} from '../../report/backups/doctor.js';

export type DoctorFlags = GlobalFlags & {output?: string};

export async function runDoctor(flags: DoctorFlags, io: Io): Promise<ExitCode> {
	failIfAbandoned(io);
	return guarded(io, flags, () => {
		const root = resolveRoot(flags, io);
		const r = examineHome({root, backupDirs: backupDirs(flags, root), now: io.now()});
		emit(io, flags, {json: () => doctorJson(r), text: () => humanDoctor(r)});

		return r.exitCode;
	});
}
