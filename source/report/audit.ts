/**
 * The repair audit trail as an operator reads it (`hfx audit show`): each entry with the rows it
 * touched, and which apply an undo reverted (and by which undo an apply was reverted). Pure: the
 * entries in, rows out.
 */
import type {AuditEntry} from '../repair/audit.js';
import type {ChangeRecord} from '../repair/write-run.js';

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
};

function touched(changes: unknown): AuditRow['rows'] {
	const rows = new Map<string, {sessionId: string; role: string; columns: string[]}>();
	for (const c of Array.isArray(changes) ? changes as ChangeRecord[] : []) {
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
		const reverted = undoneBy.get(e.seq) ?? [...undoneBy].find(([applied]) => intentOf.get(applied) === e.seq)?.[1] ?? null;
		return {
			seq: e.seq, time: e.time, mode: e.mode, phase,
			result: phase === 'intent' ? null : (typeof e.result === 'string' ? e.result : null),
			reconciled: e.reconciled === true,
			planHash: typeof e.planHash === 'string' ? e.planHash : null,
			intent: num(e.intent),
			rows: touched(e.changes),
			undoes: e.mode === 'undo' ? num(e.undoes) : null,
			undoneBy: e.mode === 'apply' ? reverted : null,
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
		].filter(Boolean).join(' · ');
		lines.push(`#${String(r.seq).padEnd(4)} ${r.time}  ${r.mode.padEnd(5)}  ${what}${links ? `  (${links})` : ''}`);
		for (const row of r.rows) {
			lines.push(`       ${row.role.padEnd(6)} ${row.sessionId}: ${row.columns.join(', ')}`);
		}
	}

	return lines;
}
