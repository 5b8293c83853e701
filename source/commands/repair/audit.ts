/**
 * `hfx audit verify [FILE]`: checks the hash chain of the repair audit trail (and settles an
 * interrupted write's intent against its store first). Exit 0 intact, 1 broken (where and how), 2
 * unreadable. `hfx audit show [FILE]`: every entry, the rows it touched, which apply an undo
 * reverted; read-only (a pending intent is shown as such). Exit 0 shown, 2 unreadable.
 */
import fs from 'node:fs';
import {type ExitCode, FailClosed} from '../../ground/errors.js';
import {auditPathFor, readAudit, verifyAudit} from '../../store/audit-trail.js';
import {reconcileAudit} from '../../repair/write/reconcile.js';
import {auditLines, auditRows, auditShowJson, auditVerifyJson, auditVerifyLines} from '../../report/repair/audit.js';
import {type GlobalFlags, type Io, emit, guarded, locate} from '../context.js';

export async function runAudit(
	flags: GlobalFlags & {action: 'verify' | 'show'; file?: string},
	io: Io,
): Promise<ExitCode> {
	return guarded(io, flags, () => {
		const file = flags.file ?? auditPathFor(locate(flags, io).stores[0]!.path);
		if (!fs.existsSync(file)) {
			// Thrown, so --json prints its {error} document on stdout too (guarded), not an empty stdout.
			throw new FailClosed({
				file,
				kind: 'not-found',
				reason: 'no audit trail here',
				next: 'it is created by the first hfx repair --apply',
			});
		}

		if (flags.action === 'show') {
			const rows = auditRows(readAudit(file));
			emit(io, flags, {
				json: () => auditShowJson(file, rows),
				text: () => (rows.length > 0 ? auditLines(rows) : [`${file}: no entries`]),
			});
			return 0;
		}

		// An interrupted apply or undo (intent without outcome) is settled against its store first.
		reconcileAudit({auditPath: file, argv: process.argv.slice(2), write: true, warn: io.err});
		const v = verifyAudit(file);
		emit(io, flags, {
			json: () => auditVerifyJson(file, v),
			text: () => auditVerifyLines(file, v, () => readAudit(file).slice(-10)),
		});
		return v.ok ? 0 : 1;
	});
}
