/**
 * The repair audit trail as an operator reads it (`hfx audit show`): each entry with the rows it
 * touched, and which apply an undo reverted (and by which undo an apply was reverted). Pure: the
 * entries in, rows out.
 */
import type {AuditEntry, AuditVerification} from '../../store/audit-trail.js';
import type {ChangeRecord} from '../../repair/write/write-run.js';

export type AuditRow = {
	seq: number;
	time: string;
	mode: string;
	/** intent (before the write), outcome (after it, naming its intent), or a single entry of an older hfx. */
	phase: 'intent' | 'outcome' | 'entry';
	result: string | null;
	reconciled: boolean;
	planHash: string | null;
	/** The intent an outcome settles. */
	intent: number | null;
	/** The sessions and columns it touched (or, for an intent, is about to touch). */
	rows: Array<{sessionId: string; role: string; columns: string[]}>;
	/** For an undo: the apply it puts back. */
	undoes: number | null;
	/** For an apply: the undo that put it back, if any. */
	undoneBy: number | null;
	/** An apply's adoptions whose donor the operator chose (--donor), with repair-routing's refusal. */
	operatorChoices: Array<{orphanId: string; donorId: string; refusedBecause: string | null}>;
};

/** The adoptions of an entry the operator chose the donor of. */
function operatorChoices(adoptions: unknown): AuditRow['operatorChoices'] {
	const list = Array.isArray(adoptions) ? (adoptions as Array<Record<string, unknown>>) : [];
	return list
		.filter(a => a.evidence === 'operator')
		.map(a => {
			const refused = a.refusedBecause as {reasonKind?: unknown; reason?: unknown} | undefined;
			return {
				orphanId: String(a.orphanId),
				donorId: String(a.donorId),
				refusedBecause: refused ? `${String(refused.reasonKind ?? 'refused')}: ${String(refused.reason ?? '')}` : null,
			};
		});
}

function touched(changes: unknown): AuditRow['rows'] {
	const rows = new Map<string, {sessionId: string; role: string; columns: string[]}>();
	for (const c of Array.isArray(changes) ? (changes as ChangeRecord[]) : []) {
		const row = rows.get(c.sessionId) ?? {sessionId: c.sessionId, role: c.role, columns: []};
		row.columns.push(c.column);
		rows.set(c.sessionId, row);
	}

	return [...rows.values()];
}

const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

export function auditRows(entries: readonly AuditEntry[]): AuditRow[] {
	const undoneBy = new Map<number, number>();
	for (const e of entries) {
		const target = num(e.undoes);
		if (e.mode === 'undo' && e.result === 'applied' && target !== null) {
			undoneBy.set(target, e.seq);
		}
	}

	// An apply's outcome is what an undo names; its intent is reverted with it.
	const intentOf = new Map(entries.filter(e => num(e.intent) !== null).map(e => [e.seq, num(e.intent)!]));
	return entries.map(e => {
		const phase = e.phase === 'intent' || e.phase === 'outcome' ? e.phase : 'entry';
		const reverted =
			undoneBy.get(e.seq) ?? [...undoneBy].find(([applied]) => intentOf.get(applied) === e.seq)?.[1] ?? null;
		return {
			seq: e.seq,
			time: e.time,
			mode: e.mode,
			phase,
			result: phase === 'intent' ? null : typeof e.result === 'string' ? e.result : null,
			reconciled: e.reconciled === true,
			planHash: typeof e.planHash === 'string' ? e.planHash : null,
			intent: num(e.intent),
			rows: touched(e.changes),
			undoes: e.mode === 'undo' ? num(e.undoes) : null,
			undoneBy: e.mode === 'apply' ? reverted : null,
			operatorChoices: e.mode === 'apply' ? operatorChoices(e.adoptions) : [],
		};
	});
}

/** One line per entry, then its rows indented. */
export function auditLines(rows: readonly AuditRow[]): string[] {
	const lines: string[] = [];
	for (const r of rows) {
		const what = r.phase === 'intent' ? 'intent' : `${r.result ?? '?'}${r.reconciled ? ' (reconciled)' : ''}`;
		const links = [
			r.intent === null ? '' : `settles #${r.intent}`,
			r.undoes === null ? '' : `reverts #${r.undoes}`,
			r.undoneBy === null ? '' : `reverted by #${r.undoneBy}`,
			r.planHash === null ? '' : `plan ${r.planHash.slice(0, 16)}`,
		]
			.filter(Boolean)
			.join(' · ');
		lines.push(`#${String(r.seq).padEnd(4)} ${r.time}  ${r.mode.padEnd(5)}  ${what}${links ? `  (${links})` : ''}`);
		for (const c of r.operatorChoices) {
			lines.push(
				`       operator's choice: ${c.orphanId} adopted ` +
					`from ${c.donorId}${c.refusedBecause ? ` (repair-routing refused it: ${c.refusedBecause})` : ''}`,
			);
		}

		for (const row of r.rows) {
			lines.push(`       ${row.role.padEnd(6)} ${row.sessionId}: ${row.columns.join(', ')}`);
		}
	}

	return lines;
}

/** `hfx audit show --json`: the trail's file and every entry as rows. */
export function auditShowJson(file: string, rows: readonly AuditRow[]) {
	return {file, entries: rows};
}

/** `hfx audit verify --json`: the trail's file and the hash chain's verdict. */
export function auditVerifyJson(file: string, v: AuditVerification) {
	return {file, ...v};
}

/** `hfx audit verify`: the verdict, then the last entries (`recent`) one line each. */
export function* auditVerifyLines(
	file: string,
	v: AuditVerification,
	recent: () => readonly AuditEntry[],
): Generator<string> {
	if (!v.ok) {
		yield `✗ ${file}: the audit trail was altered at line ${v.brokenAt}: ${v.problem}`;
		return;
	}

	yield `✓ ${file}: ${v.entries} entries, hash chain intact; ` +
		`head ${v.head ?? '(empty)'} (keep it elsewhere to pin the trail)`;
	for (const e of recent()) {
		const result =
			e.phase === 'intent' ? 'intent' : `${String(e.result ?? '')}${e.reconciled === true ? ' (reconciled)' : ''}`;
		yield `  ${String(e.seq).padStart(4)}  ${e.time}  ${e.mode.padEnd(7)}  ${result}`;
	}
}
