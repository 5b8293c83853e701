/**
 * `hfx scan`: what is wrong, why, and what to do next; `--json` for scripts and cron.
 * Exit 0 healthy, 1 findings (a rollback that happened, any orphan or rollback risk), 2 the scan could not be done.
 */
import {hasFindings} from '../../forensics/analysis/analyze.js';
import type {ExitCode} from '../../ground/errors.js';
import {type PendingStore, scanJsonThen} from '../../report/analysis/scan-json.js';
import {humanReport} from '../../report/analysis/scan-text.js';
import type {Located} from '../../store/locate.js';
import {
	type GlobalFlags,
	type Io,
	type StoreResult,
	analyzeLoaded,
	guarded,
	loadAndAnalyze,
	loadForAnalysis,
	locate,
} from '../context.js';

export function exitCodeOf(results: ReadonlyArray<Pick<StoreResult, 'ok'> & {findings?: boolean}>): ExitCode {
	if (results.some(r => !r.ok)) {
		return 2;
	}

	return results.some(r => r.findings === true) ? 1 : 0;
}

export async function runScan(flags: GlobalFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, () => {
		const located = locate(flags, io);
		return flags.json ? scanJsonStreamed(located, flags, io) : scanText(located, flags, io);
	});
}

function scanText(located: Located, flags: GlobalFlags, io: Io): ExitCode {
	const results = located.stores.map(location => loadAndAnalyze(location, flags, 'lean', io.env));
	for (const r of results) {
		if (!r.ok) {
			io.err(r.error.line());
		}
	}

	// A store that could not be read has said so, once, on stderr.
	for (const [i, r] of results.filter(x => x.ok).entries()) {
		if (i > 0) {
			io.out('');
		}

		for (const line of humanReport(r.facts, r.analysis)) {
			io.out(line);
		}
	}

	return exitCodeOf(results.map(r => ({ok: r.ok, findings: r.ok && hasFindings(r.analysis)})));
}

/**
 * `--json` as it is made (issue #26): each store is read when the writer reaches its place, the first one's head is
 * out before its analysis runs, and a store's analysis is let go once its fields are written (only whether it found
 * something is kept, for the exit code).
 */
function scanJsonStreamed(located: Located, flags: GlobalFlags, io: Io): ExitCode {
	const judged: Array<{ok: boolean; findings?: boolean}> = [];
	const pending: PendingStore[] = [];
	const storeAt = (i: number): PendingStore => {
		pending[i] ??= pendingStore(located, i, flags, io, judged);
		return pending[i];
	};
	let code: ExitCode | undefined;
	io.json(
		scanJsonThen(located.stores.length, storeAt, () => {
			code = exitCodeOf(judged);
			return code;
		}),
	);
	if (code === undefined) {
		// The reader closed the pipe early, which stopped the writer: the stores it did not reach are judged all the same.
		for (const [i] of located.stores.entries()) {
			const store = storeAt(i);
			if (store.ok && judged[i] === undefined) {
				store.analysis();
			}
		}
	}

	return code ?? exitCodeOf(judged);
}

/** Store `i` read (a refusal said on stderr), its analysis run when asked for and its verdict kept in `judged`. */
function pendingStore(
	located: Located,
	i: number,
	flags: GlobalFlags,
	io: Io,
	judged: Array<{ok: boolean; findings?: boolean}>,
): PendingStore {
	const loaded = loadForAnalysis(located.stores[i]!, flags, 'lean', io.env);
	if (!loaded.ok) {
		io.err(loaded.error.line());
		judged[i] = {ok: false};
		return loaded;
	}

	return {
		ok: true,
		facts: loaded.facts,
		buildRules: loaded.buildRules,
		analysis() {
			const analysis = analyzeLoaded(loaded, flags);
			judged[i] = {ok: true, findings: hasFindings(analysis)};
			return analysis;
		},
	};
}
