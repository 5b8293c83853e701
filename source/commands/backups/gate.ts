/**
 * `hfx gate [--max-age 30m] [--home ROOT] [-o DIR] [--json]`: the human gate before a destructive
 * container operation: `hfx gate && docker compose build`. Exit 0 and the backup's path on
 * stdout only when a complete, verified, drilled backup of this home newer than max-age exists
 * (an hfx or Hermes zip, a quick snapshot, a tarball of the home or its volume; its bytes unchanged
 * since the drill); otherwise exit 1 and what is missing on stderr.
 */
import {DEFAULT_MAX_AGE_SECONDS, checkGate, parseDuration} from '../../backup/ops/gate.js';
import {realPathOf} from '../../backup/manifest.js';
import type {ExitCode} from '../../ground/errors.js';
import {gateJson} from '../../report/backups/gate-json.js';
import {backupDirs, failIfAbandoned, resolveRoot} from '../shared/backup-root.js';
import {type GlobalFlags, type Io, emit, guarded} from '../context.js';

export type GateFlags = GlobalFlags & {output?: string; maxAge?: string};

export async function runGate(flags: GateFlags, io: Io): Promise<ExitCode> {
	failIfAbandoned(io);
	return guarded(io, flags, async () => {
		const maxAge = flags.maxAge === undefined ? DEFAULT_MAX_AGE_SECONDS : parseDuration(flags.maxAge);
		if (maxAge === null) {
			io.err(
				`hfx: --max-age ${JSON.stringify(flags.maxAge)} is not a duration. Next: ` +
					`use e.g. 30m, 2h, 1d or a number of seconds`,
			);
			return 2;
		}

		const root = resolveRoot(flags, io);
		const r = await checkGate({
			root,
			dirs: backupDirs(flags, root),
			maxAgeSeconds: maxAge,
			now: io.now(),
			home: realPathOf(root),
		});
		emit(io, flags, {
			json: () => gateJson(r),
			// The text is the archive's path alone (for scripts: `restore "$(hfx gate)"`); the verdict goes to stderr.
			text: () => (r.ok ? [r.archive!] : []),
		});

		if (r.ok) {
			io.err(`hfx gate: pass: ${r.reason}`);
			return 0;
		}

		io.err(`hfx gate: BLOCKED: ${r.reason}`);
		return 1;
	});
}
