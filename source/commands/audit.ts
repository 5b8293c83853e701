/**
 * `hfx audit verify [FILE]`: checks the hash chain of the repair audit trail. Exit 0 intact,
 * 1 broken (where and how), 2 unreadable.
 */
import fs from 'node:fs';
import {type ExitCode, refusalLine} from '../errors.js';
import {auditPathFor, readAudit, verifyAudit} from '../repair/audit.js';
import {reconcileAudit} from '../repair/reconcile.js';
import {type GlobalFlags, type Io, emit, guarded, locate} from './context.js';

export async function runAudit(flags: GlobalFlags & {action?: string; file?: string}, io: Io): Promise<ExitCode> {
	return guarded(io, flags, () => {
		if (flags.action !== 'verify') {
			io.err('hfx: audit: the only action is verify: hfx audit verify [FILE]');
			return 2;
		}

		const file = flags.file ?? auditPathFor(locate(flags, io).stores[0]!.path);
		if (!fs.existsSync(file)) {
			io.err(refusalLine({file, reason: 'no audit trail here', next: 'it is created by the first hfx repair'}));
			return 2;
		}

		// An interrupted apply or undo (intent without outcome) is settled against its store first.
		reconcileAudit({auditPath: file, argv: process.argv.slice(2), write: true, warn: io.err});
		const v = verifyAudit(file);
		emit(io, flags, {
			json: () => ({file, ...v}),
			*text() {
				if (!v.ok) {
					yield `✗ ${file}: the audit trail was altered at line ${v.brokenAt}: ${v.problem}`;
					return;
				}

				yield `✓ ${file}: ${v.entries} entries, hash chain intact; head ${v.head ?? '(empty)'} (keep it elsewhere to pin the trail)`;
				for (const e of readAudit(file).slice(-10)) {
					const result = e.phase === 'intent' ? 'intent' : `${String(e.result ?? '')}${e.reconciled === true ? ' (reconciled)' : ''}`;
					yield `  ${String(e.seq).padStart(4)}  ${e.time}  ${e.mode.padEnd(7)}  ${result}`;
				}
			},
		});
		return v.ok ? 0 : 1;
	});
}
