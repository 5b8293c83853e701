/**
 * `hfx metrics [--home ROOT] [--textfile PATH]`: every store under a root in Prometheus' text
 * exposition format, on stdout or replaced atomically in node_exporter's textfile folder.
 * Read-only; nothing is created beside a store. Exit 0 written, 1 written but some store could
 * not be read (it is `hfx_store_up 0`, and its line is on stderr), 2 nothing written.
 */
import type {ExitCode} from '../../ground/errors.js';
import {storeSamples} from '../../report/metrics/metrics-samples.js';
import {exposition} from '../../report/metrics/prometheus-text.js';
import {toolVersion} from '../../ground/version.js';
import {type GlobalFlags, type Io, guarded, locate} from '../context.js';
import {readStoreOnce, rootBackups} from '../shared/store-reading.js';
import {checkTextfile, writeTextfile} from '../shared/textfile.js';

export type MetricsFlags = GlobalFlags & {textfile?: string};

export async function runMetrics(flags: MetricsFlags, io: Io): Promise<ExitCode> {
	return guarded(io, {json: false}, async () => {
		const located = locate(flags, io);
		const target = flags.textfile === undefined ? null : checkTextfile(flags.textfile, located.stores);
		const backups = rootBackups(located.root, io.now());
		const readings = [];
		for (const location of located.stores) {
			readings.push(await readStoreOnce(location, flags, backups, io));
		}

		const text = await exposition(readings.flatMap(storeSamples), toolVersion());
		if (target === null) {
			// Line by line: each line passes the safe sink whole (prom-client escapes label values).
			for (const line of text.replace(/\n$/, '').split('\n')) {
				io.out(line);
			}
		} else {
			writeTextfile(target, text);
		}

		for (const r of readings) {
			if (!r.result.ok) {
				io.err(r.result.line);
			}
		}

		return readings.some(r => !r.result.ok) ? 1 : 0;
	});
}
