/**
 * What the repair flow shows, as coloured lines: the title, the plan's before/after and the
 * checklist while previewing, the apply log, and the outcome with the post-repair routing.
 */
import {adoptionLines} from '../../report/repair/repair.js';
import type {Check} from '../../repair/write/preconditions.js';
import {wrapIndented} from '../../text/wrap.js';
import type {FlowState} from './repair-flow-state.js';
import type {Theme} from '../theme.js';

export type Line = {text: string; color?: string; bold?: boolean};

/** A line wrapped to the width (continuations indented), each part in the line's colour. */
export function wrapped(line: Line, width: number, indent: number): Line[] {
	return wrapIndented(line.text, width, indent).map(text => ({...line, text}));
}

/** The preconditions as a checklist: each ✓ or ✗ with its detail, and the next step of one that does not hold. */
export function checklistLines(checks: readonly Check[], theme: Theme, width: number): Line[] {
	const lines: Line[] = [{text: ' preconditions', bold: true}];
	for (const c of checks) {
		lines.push(
			...wrapped(
				{text: `  ${c.ok ? '✓' : '✗'} ${c.label}${c.ok ? '' : `: ${c.detail}`}`, color: c.ok ? theme.ok : theme.danger},
				width,
				4,
			),
		);
		if (!c.ok && c.next) {
			lines.push(...wrapped({text: `    next: ${c.next}`, color: theme.muted}, width, 10));
		}
	}

	return lines;
}

function previewLines(state: FlowState, orphanId: string, theme: Theme, width: number): Line[] {
	const lines: Line[] = [];
	const a = state.planned!.plan.adoptions[0];
	if (a) {
		for (const l of adoptionLines(a, width - 1)) {
			lines.push({text: ` ${l}`, color: l.trimStart().startsWith('!') ? theme.warn : undefined});
		}
	} else {
		const refusal = state.planned!.plan.donorRefusal;
		lines.push(
			...wrapped(
				{
					text: refusal
						? ` ✗ not this donor: ${refusal}`
						: ` ${orphanId} is not adoptable now (the store changed, or repair-routing refuses it)`,
					color: theme.warn,
				},
				width,
				3,
			),
		);
	}

	lines.push(...checklistLines(state.checks, theme, width));
	lines.push(
		...wrapped(
			{
				text: '  · a verified snapshot is taken, and the plan re-checked inside BEGIN IMMEDIATE, when you apply',
				color: theme.muted,
			},
			width,
			4,
		),
	);
	return lines;
}

function outcomeLines(o: NonNullable<FlowState['outcome']>, theme: Theme): Line[] {
	const lines: Line[] = [];
	if (o.result === 'applied') {
		for (const v of o.verification) {
			lines.push({
				text:
					` ${v.ok ? '✓' : '✗'} ${v.orphanId} ${v.carriesKey ? 'now owns' : 'does NOT own'} ${v.sessionKey}; ` +
					`after a restart the gateway ` +
					`resumes ${v.restartResolvesTo ?? 'a new session'}`,
				color: v.ok ? theme.ok : theme.danger,
				bold: true,
			});
		}
	} else {
		lines.push({text: ` ✗ ${o.reason ?? o.result}`, color: theme.danger, bold: true});
		if (o.next) {
			lines.push({text: `   next: ${o.next}`});
		}
	}

	if (o.snapshotDir) {
		lines.push({text: ` snapshot ${o.snapshotDir}`, color: theme.muted});
	}

	if (o.audit) {
		lines.push({
			text:
				` audit entry ${o.audit.seq}` +
				`${o.result === 'applied' ? ` · undo with: hfx repair --undo ${o.audit.seq}` : ''}`,
			color: theme.muted,
		});
	}

	return lines;
}

/** The flow's title: what is true now (a preview that wrote nothing, or the repair applied and undoable). */
export function flowTitle(state: FlowState, orphanId: string): string {
	const o = state.outcome;
	if (o?.result === 'applied') {
		return ` Repair ${orphanId} applied${o.audit ? ` · undo available: hfx repair --undo ${o.audit.seq}` : ''}`;
	}

	if (o) {
		return (
			` Repair ${orphanId}: ${o.result === 'nothing-to-do' ? 'nothing to do' : 'not applied'} ` +
			`(nothing was written)`
		);
	}

	return state.stage === 'applying'
		? ` Repair ${orphanId}: applying…`
		: ` Repair ${orphanId} · preview: nothing is written until you confirm`;
}

/** The flow's body below its title, every line at most `width` columns (long ones wrap, none is cut). */
export function flowLines(state: FlowState, orphanId: string, theme: Theme, width: number): Line[] {
	const lines: Line[] = [];
	if (state.stage === 'planning') {
		lines.push({text: ' computing the plan…', color: theme.muted});
	}

	if (state.stage === 'error') {
		lines.push({text: ` ✗ ${state.error ?? 'error'}`, color: theme.danger});
	}

	if (state.planned && (state.stage === 'preview' || state.stage === 'confirm')) {
		lines.push(...previewLines(state, orphanId, theme, width));
	}

	if (state.stage === 'applying' || state.stage === 'done') {
		lines.push(...state.log.map(l => ({text: `  ${l}`})));
	}

	if (state.stage === 'done' && state.outcome) {
		lines.push(...outcomeLines(state.outcome, theme));
	}

	return lines.flatMap(l => wrapped(l, width, 4));
}
