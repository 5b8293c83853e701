/**
 * `hfx files`: state.db, -wal, -shm and -journal as the files are right now: WAL frame classes,
 * the checksum-break signal, the -shm header (read in a child process), who holds the files, and
 * each state judged (store/files-states.ts): exit 1 for a finding (committed data hidden behind a
 * checksum break or a damaged WAL header, a hot journal, a holder of a deleted -wal), exit 2 with
 * one line on stderr when the store is unusable as it is (a truncated main file).
 */
import {type ExitCode, refusalLine} from '../errors.js';
import {FilesProbe, describeFiles} from '../store/files-probe.js';
import {fileStates, statesExit} from '../store/files-states.js';
import {preflight} from '../store/preflight.js';
import {type GlobalFlags, type Io, emit, guarded, locate} from './context.js';

export async function runFiles(flags: GlobalFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, async () => {
		const location = locate(flags, io).stores[0]!;
		// Preflight only (header and sizes); this command never opens a SQLite connection.
		const pre = preflight(location.path);
		const probe = new FilesProbe(pre.path, {holdersEveryMs: 0});
		try {
			const report = await probe.read({settle: true});
			const states = fileStates(report, pre.header);
			const code = statesExit(states);
			emit(io, flags, {
				json: () => ({database: {path: pre.path, link: pre.link, journalMode: pre.journalMode}, ...report, states, attention: code !== 0}),
				text: () => [`${pre.path} (${pre.journalMode === 'wal' ? 'WAL mode' : 'rollback journal'})`, ...describeFiles(report, pre.journalMode).map(line => line.text)],
			});
			const unusable = states.find(s => s.state === 'unusable');
			if (unusable) {
				io.err(refusalLine(unusable));
			}

			return code;
		} finally {
			await probe.close();
		}
	});
}
