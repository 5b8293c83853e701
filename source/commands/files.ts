/**
 * `hfx files`: state.db, -wal and -shm as the files are right now: WAL frame classes, the
 * checksum-break signal, the -shm header (read in a child process), and who holds the files.
 * Exit 1 when something needs attention (a checksum break hiding committed data, a holder of a
 * deleted -wal).
 */
import type {ExitCode} from '../errors.js';
import {FilesProbe, describeFiles} from '../store/files-probe.js';
import {preflight} from '../store/preflight.js';
import {type GlobalFlags, type Io, emit, guarded, locate} from './context.js';

export async function runFiles(flags: GlobalFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, async () => {
		const location = locate(flags, io).stores[0]!;
		// Preflight only (header and sizes); this command never opens a SQLite connection.
		const pre = preflight(location.path);
		const probe = new FilesProbe(pre.path, {holdersEveryMs: 0});
		try {
			const report = await probe.read();
			const attention = Boolean(report.wal?.silentlyInvisible) || report.holders.holders.some(h => h.holdsDeletedWal);
			emit(io, flags, {
				json: () => ({database: {path: pre.path, link: pre.link, journalMode: pre.journalMode}, ...report, attention}),
				text: () => [`${pre.path} (${pre.journalMode === 'wal' ? 'WAL mode' : 'rollback journal'})`, ...describeFiles(report, pre.journalMode).map(line => line.text)],
			});

			return attention ? 1 : 0;
		} finally {
			await probe.close();
		}
	});
}
