/**
 * What the backup commands (backup, backups, verify, restore, gate, doctor) share: the Hermes root
 * they work on, the archive folders they look in, and an exit that never reads "done" by accident.
 */
import path from 'node:path';
import {defaultBackupDir} from '../../backup/create/backup.js';
import {hermesRoot} from '../../store/locate.js';
import {type GlobalFlags, type Io, processIo} from '../context.js';

/** The Hermes root: --home, else HERMES_HOME / ~/.hermes as Hermes derives it. */
export function resolveRoot(flags: Pick<GlobalFlags, 'home'>, io: Io): string {
	return flags.home ? path.resolve(flags.home) : hermesRoot(io.env);
}

/** Archive folders to look in: -o DIR when given, else <root>/backups. */
export function backupDirs(flags: {output?: string}, root: string): string[] {
	return flags.output ? [path.resolve(flags.output)] : [defaultBackupDir(root)];
}

/**
 * A backup, restore or verify must never end with exit 0 because an await was abandoned (a
 * promise that never settles lets Node exit with the default code 0). In the CLI, the exit code
 * is "failed" (2) until the command returns its real code.
 */
export function failIfAbandoned(io: Io): void {
	if (io === processIo) {
		process.exitCode = 2;
	}
}
