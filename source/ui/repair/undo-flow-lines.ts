/**
 * What the undo flow shows, as coloured lines: the audit trail's applied repairs that can be
 * undone (the chosen one marked), the columns its undo puts back, the live checklist, then the
 * undo's log and outcome.
 */
import {restoresOf} from '../../repair/undo.js';
import type {AuditEntry} from '../../store/audit-trail.js';
import {type Line, checklistLines, wrapped} from './repair-flow-lines.js';
import type {Theme} from '../theme.js';
import {type UndoState, chosenEntry} from './undo-flow-state.js';

function cell(value: unknown): string {
	return value === null || value === undefined ? 'NULL' : typeof value === 'string' ? value : JSON.stringify(value);
}

/** "entry 2 · 2026-12-02 04:35 · adopted X (from Y)" */
function entryLine(entry: AuditEntry): string {
	const adoptions = (entry.adoptions as Array<{orphanId: string; donorId: string}> | undefined) ?? [];
	const what =
		adoptions.length > 0
			? adoptions.map(a => `adopted ${a.orphanId} (from ${a.donorId})`).join(', ')
			: `${((entry.changes as unknown[] | undefined) ?? []).length} columns`;
	return `entry ${entry.seq} · ${entry.time.slice(0, 16).replace('T', ' ')} · ${what}`;
}

function trailLines(state: UndoState, auditPath: string, theme: Theme, width: number): Line[] {
	const entries = state.entries ?? [];
	if (entries.length === 0) {
		return wrapped(
			{text: ` no applied repair in the audit trail (${auditPath}) can be undone`, color: theme.muted},
			width,
			3,
		);
	}

	const lines: Line[] = [
		{
			text:
				` the audit ` +
				`trail: ${entries.length === 1 ? 'one applied repair' : `${entries.length} applied repairs`} ` +
				`can be undone${entries.length > 1 ? ' (n: the next)' : ''}`,
			bold: true,
		},
	];
	for (const [i, e] of entries.entries()) {
		lines.push(...wrapped({text: `  ${i === state.at ? '›' : ' '} ${entryLine(e)}`, bold: i === state.at}, width, 4));
	}

	return lines;
}

function previewLines(state: UndoState, auditPath: string, theme: Theme, width: number): Line[] {
	const lines = trailLines(state, auditPath, theme, width);
	const entry = chosenEntry(state);
	if (!entry) {
		return lines;
	}

	// A cell the repair wrote with the value it already held is checked by the undo but changes nothing: not listed.
	const all = restoresOf(entry);
	const restores = all.filter(r => cell(r.before) !== cell(r.after));
	lines.push({
		text: ` undo of entry ${entry.seq} puts back ${restores.length} columns (refused if any changed since the repair):`,
		bold: true,
	});
	if (all.length > restores.length) {
		lines.push({
			text: `   (${all.length - restores.length} more it wrote with their own value are checked, not changed)`,
		});
	}

	for (const r of restores) {
		lines.push(...wrapped({text: `   ${r.sessionId} ${r.column}: ${cell(r.before)} → ${cell(r.after)}`}, width, 5));
	}

	lines.push(...checklistLines(state.checks, theme, width));
	lines.push(
		...wrapped(
			{
				text:
					'  · a verified snapshot is taken, and every column re-checked inside ' +
					"BEGIN IMMEDIATE, when you undo; hfx's own reads of the store pause " +
					'while it writes',
				color: theme.muted,
			},
			width,
			4,
		),
	);
	return lines;
}

function outcomeLines(state: UndoState, theme: Theme): Line[] {
	const o = state.outcome!;
	const lines: Line[] =
		o.result === 'applied'
			? [
					{
						text: ` ✓ entry ${chosenEntry(state)?.seq ?? '?'} undone: ${o.changes.length} columns put back`,
						color: theme.ok,
						bold: true,
					},
				]
			: [
					{text: ` ✗ ${o.reason ?? o.result}`, color: theme.danger, bold: true},
					...(o.next ? [{text: `   next: ${o.next}`}] : []),
				];
	if (o.snapshotDir) {
		lines.push({text: ` snapshot ${o.snapshotDir}`, color: theme.muted});
	}

	if (o.audit) {
		lines.push({text: ` audit entry ${o.audit.seq}`, color: theme.muted});
	}

	return lines;
}

/** The flow's title: what is true now. */
export function undoTitle(state: UndoState): string {
	const seq = chosenEntry(state)?.seq;
	const o = state.outcome;
	if (o) {
		return o.result === 'applied'
			? ` Undo of entry ${seq} applied${o.audit ? ` · audit entry ${o.audit.seq}` : ''}`
			: ` Undo of entry ${seq}: not applied (nothing was written)`;
	}

	if (state.stage === 'undoing') {
		return ` Undo of entry ${seq}: undoing…`;
	}

	return seq === undefined
		? ' Undo a repair'
		: ` Undo repair entry ${seq} · preview: nothing is written until you confirm`;
}

/** The flow's body below its title, every line at most `width` columns. */
export function undoLines(state: UndoState, auditPath: string, theme: Theme, width: number): Line[] {
	const lines: Line[] = [];
	if (state.stage === 'error') {
		lines.push({text: ` ✗ ${state.error ?? 'error'}`, color: theme.danger});
	}

	if (state.entries === null && state.stage !== 'error') {
		lines.push({text: ' reading the audit trail…', color: theme.muted});
	}

	if (state.entries !== null && (state.stage === 'preview' || state.stage === 'confirm')) {
		lines.push(...previewLines(state, auditPath, theme, width));
	}

	if (state.stage === 'undoing' || state.stage === 'done') {
		lines.push(...state.log.map(l => ({text: `  ${l}`})));
	}

	if (state.stage === 'done' && state.outcome) {
		lines.push(...outcomeLines(state, theme));
	}

	return lines.flatMap(l => wrapped(l, width, 4));
}
