/**
 * `hfx scan`: what is wrong, why, and what to do next; `--json` for scripts and cron.
 * Exit 0 healthy, 1 findings (a rollback that happened, any orphan or rollback risk), 2 the scan could not be done.
 */
import {hasFindings} from '../../forensics/analysis/analyze.js';
import type {ExitCode} from '../../ground/errors.js';
import {scanJson} from '../../report/analysis/scan-json.js';
import {humanReport} from '../../report/analysis/scan-text.js';
import {type GlobalFlags, type Io, type StoreResult, emit, guarded, loadAndAnalyze, locate} from '../context.js';

export function exitCodeOf(results: readonly StoreResult[]): ExitCode {
	if (results.some(r => !r.ok)) {
		return 2;
	}

	return results.some(r => r.ok && hasFindings(r.analysis)) ? 1 : 0;
}

export async function runScan(flags: GlobalFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, () => {
		const located = locate(flags, io);
		const results = located.stores.map(location => loadAndAnalyze(location, flags, 'lean', io.env));
		for (const r of results) {
			if (!r.ok) {
				io.err(r.error.line());
			}
		}

		const code = exitCodeOf(results);
		emit(io, flags, {
			json: () => scanJson(results, code),
			*text() {
				// A store that could not be read has said so, once, on stderr.
				for (const [i, r] of results.filter(x => x.ok).entries()) {
					if (i > 0) {
						yield '';
					}

					yield* humanReport(r.facts, r.analysis);
				}
			},
		});
		return code;
	});
}
