/**
 * Findings: rollbacks that already happened (first, with their evidence), rollback risks, orphans with verdict,
 * evidence, donor and reason, stale routing
 * entries. Enter opens the session; r hands the selected orphan to the repair flow, d a refused
 * one with its candidate donors (each with when it fell quiet) for the operator's own adoption.
 */
import type React from 'react';
import {Box} from 'ink';
import type {Finding} from '../../forensics/analysis/analyze.js';
import {FittedLines, type PaneLine, detailWraps, fitLines} from '../components/fitted-lines.js';
import {List} from '../components/list.js';
import {useTheme} from '../theme.js';
import {findingRows, fuzzy} from '../views.js';
import {type ProfileFinding, mergedFindings} from '../sources/home-model.js';
import {candidateDonors} from '../../report/analysis/candidates.js';
import type {Rollback} from '../../forensics/rollbacks/rollbacks.js';
import {rollbackDetailLines} from '../../report/analysis/rollback-lines.js';
import {keyedList} from './keyed.js';
import type {PaneContext, PaneSpec} from './types.js';

type Row = Finding & {profile?: string};

/** A finding of another profile than the focused one (its sessions are not in the focused store). */
const NOTHING_TO_REPORT =
	'✓ nothing to report: every chat resumes its newest conversation and no gateway row lost its routing identity';

/** While the first analysis runs (LiveModel.analysing) the empty list is "not known yet", never "nothing to report". */
export const ANALYSING_FINDINGS =
	'analysing… the findings follow once the store has been read whole (keys work meanwhile)';

function elsewhere(ctx: PaneContext, f: Row): boolean {
	return f.profile !== undefined && f.profile !== ctx.home?.focused;
}

/** The rollback a rollback-happened finding is about. */
function rollbackOf(ctx: PaneContext, f: Row): Rollback | undefined {
	return f.kind === 'rollback-happened' && !elsewhere(ctx, f)
		? ctx.model.analysis.rollbacks.find(r => r.sessionKey === f.subject)
		: undefined;
}

/** The focused store's findings; on a root with profiles, every profile's, each naming its profile. */
function rows(ctx: PaneContext): Row[] {
	if (!ctx.home) {
		return findingRows(ctx.model.analysis, ctx.ui.filterText);
	}

	const all: ProfileFinding[] = mergedFindings(ctx.home);
	return ctx.ui.filterText ? fuzzy(all, ['subject', 'title', 'detail'], ctx.ui.filterText) : all;
}

/** A finding's identity: its profile, what it is about and of which kind (its wording may change with the evidence). */
const list = keyedList('findings', rows, (f: Row) => `${f.profile ?? ''}\u0000${f.kind}\u0000${f.subject}`);

const MARK: Record<Finding['severity'], string> = {critical: '✗', warning: '!', info: 'i'};

/**
 * The rules the findings were judged by and the build they came from (issue #27), as `hfx scan` says them: ` · rules
 * v30 before #91543 · build 0.20.5@f31cf9710000 (medium)`; where the build is unknown, its other candidate rules.
 */
function rulesWords(ctx: PaneContext): string {
	const {analysis} = ctx.model;
	const build = analysis.buildRules;
	if (ctx.home || build === null) {
		return '';
	}

	const other = build.alternative === null ? '' : ` (or ${build.alternative.label})`;
	return ` · rules ${analysis.rulesLabel}${other} · build ${build.build ?? 'unknown'} (${build.confidence})`;
}

/** Where the build leaves a rule change undecided and the other rules decide this finding otherwise: both verdicts. */
function otherBuildLines(ctx: PaneContext, f: Row): PaneLine[] {
	const other = elsewhere(ctx, f) ? undefined : ctx.model.analysis.buildChanges.bySubject.get(f.subject);
	return other === undefined ? [] : [{text: ` build undecided: ${other}`}];
}

function FindingsView({ctx}: {ctx: PaneContext}): React.ReactElement {
	const theme = useTheme();
	const items = list.rows(ctx);
	const selected = list.selected(ctx);
	const wrap = ctx.ui.wrap.findings;
	const detailWrap = detailWraps(ctx.width, wrap);
	const rollback = selected ? rollbackOf(ctx, selected) : undefined;
	// On a rollback, the keyless row holding what it skipped is the orphan to adopt (d).
	const orphanId = rollback?.skipped.kind === 'keyless' ? rollback.skipped.id : selected?.subject;
	const orphan =
		selected && !elsewhere(ctx, selected) ? ctx.model.analysis.orphans.find(o => o.orphanId === orphanId) : undefined;
	const candidates = orphan ? candidateDonors(orphan, ctx.model.analysis.byId, ctx.model.analysis.rollbacks) : [];
	const {story, evidence} = rollback ? rollbackDetailLines(rollback) : {story: [selected?.detail ?? ''], evidence: []};
	// The next step before the evidence: at 80x24 the action stays on screen when the facts do not.
	const detail: PaneLine[] = selected
		? [
				...story.map(text => ({text: ` ${text}`})),
				...(selected.ifRestarted ? [{text: ` ${selected.ifRestarted}`}] : []),
				...otherBuildLines(ctx, selected),
				...candidates.map(c => ({text: ` ${ctx.width >= 120 ? c.text : c.short}`})),
				{text: ` next: ${selected.next}`, color: theme.accent},
				elsewhere(ctx, selected)
					? {text: ` P focuses profile ${selected.profile} (its sessions, its repair)`, color: theme.muted}
					: {
							text:
								` ⏎ open ${rollback?.skipped.id ?? selected.subject}` +
								`${selected.kind === 'orphan-adoptable' ? '   r preview the repair' : ''}` +
								`${candidates.length > 0 ? '   d adopt from a candidate donor (your choice)' : ''}`,
							color: theme.muted,
						},
				...evidence.map(text => ({text: ` ${text}`})),
			]
		: [];
	// Wrapped, the detail takes the lines it needs (up to half the pane; a rollback's story all but 4 rows of it); a
	// blank line above the footer.
	const most =
		rollback && detailWrap
			? ctx.height - 4
			: Math.max(3 + story.length + evidence.length + candidates.length, Math.floor(ctx.height / 2));
	const detailHeight = selected ? Math.min(fitLines(detail, ctx.width, detailWrap).length + 1, most) : 0;
	return (
		<Box flexDirection="column">
			<List
				{...list.props(ctx)}
				height={ctx.height - detailHeight}
				header={ctx.model.analysing ? 'findings (analysing…)' : `findings (${items.length})${rulesWords(ctx)}`}
				empty={ctx.model.analysing ? ANALYSING_FINDINGS : NOTHING_TO_REPORT}
				line={f => `${MARK[f.severity]} ${f.title}`}
				color={f => (f.severity === 'critical' ? theme.danger : f.severity === 'warning' ? theme.warn : theme.muted)}
			/>
			{selected ? <FittedLines lines={detail} width={ctx.width} height={detailHeight} wrap={detailWrap} /> : null}
		</Box>
	);
}

export const findingsPane: PaneSpec = {
	rowCount: list.rowCount,
	cursor: list.cursor,
	rowIds: list.rowIds,
	selectedId: ctx => {
		const f = list.selected(ctx);
		if (!f || elsewhere(ctx, f)) {
			return null;
		}

		const rollback = rollbackOf(ctx, f);
		if (rollback) {
			return rollback.skipped.id;
		}

		if (ctx.model.analysis.byId.has(f.subject)) {
			return f.subject;
		}

		const chat = ctx.model.analysis.routing.find(r => r.sessionKey === f.subject);
		return chat?.newestActivityIn ?? chat?.restartResolvesTo ?? null;
	},
	yankText: ctx => list.selected(ctx)?.subject ?? null,
	View: FindingsView,
};
