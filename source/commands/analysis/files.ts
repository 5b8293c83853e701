/**
 * `hfx files`: state.db, -wal, -shm and -journal as the files are right now: WAL frame classes,
 * the checksum-break signal, the -shm header (read in a child process), who holds the files, and
 * each state judged (store/files/files-states.ts); then every other place the conversation can be
 * beside the store (diverted transcripts, the spool, retired-WAL captures, before images) with
 * its meaning, judged against the store read once the files' probe is closed. Exit 1 for a
 * finding (committed data hidden behind a checksum break or a damaged WAL header, a hot journal,
 * a holder of a deleted -wal, a write halt, turns Hermes will not replay), exit 2 with one line
 * on stderr when the store is unusable as it is (a truncated main file).
 */
import {type ExitCode, refusalLine} from '../../ground/errors.js';
import {filesJson} from '../../report/files/files-json.js';
import {placeLines} from '../../report/files/places-text.js';
import {FilesProbe} from '../../store/files/files-probe.js';
import {describeFiles} from '../../report/files/files-text.js';
import {fileStates, statesExit} from '../../store/files/files-states.js';
import {preflight} from '../../store/open/preflight.js';
import {type GlobalFlags, type Io, emit, guarded, loadAndAnalyze, locate} from '../context.js';

const PLACE_FINDINGS = new Set(['write-halt', 'unreplayed-turns']);

export async function runFiles(flags: GlobalFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, async () => {
		const location = locate(flags, io).stores[0]!;
		// Preflight only (header and sizes) while the files are probed: no SQLite connection then.
		const pre = preflight(location.path);
		const probe = new FilesProbe(pre.path, {holdersEveryMs: 0});
		let report: Awaited<ReturnType<FilesProbe['read']>>;
		try {
			report = await probe.read({settle: true});
		} finally {
			await probe.close();
		}

		const states = fileStates(report, pre.header);
		const unusable = states.find(s => s.state === 'unusable');
		// The probe is closed: the store may now be read (read-only) to judge the places beside it.
		const loaded = unusable ? null : loadAndAnalyze(location, flags, 'lean');
		const analysis = loaded?.ok ? loaded.analysis : null;
		const halted = analysis?.findings.some(f => PLACE_FINDINGS.has(f.kind)) ?? false;
		const code = statesExit(states) === 0 && halted ? 1 : statesExit(states);
		emit(io, flags, {
			json: () => filesJson(pre, report, states, analysis, code !== 0),
			text: () => [
				`${pre.path} (${pre.journalMode === 'wal' ? 'WAL mode' : 'rollback journal'})`,
				...describeFiles(report, pre.journalMode).map(line => line.text),
				...placeLines(analysis?.places ?? null).map(line => line.text),
			],
		});
		if (unusable) {
			io.err(refusalLine(unusable));
		}

		return code;
	});
}
