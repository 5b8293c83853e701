/**
 * The repair plan as text: each adoption's columns before and after, what a restart resumes
 * before and after, the warnings, the refusals, and the store's generation notes. Shared by
 * `hfx repair` and the TUI's repair flow (a renderer below both).
 */
import type {Planned} from '../../repair/apply.js';
import type {Adoption, Value} from '../../repair/plan/plan.js';
import {upgradeNotice} from '../../store/read/load.js';
import {candidateLines} from '../analysis/candidates.js';
import {buildLine} from '../analysis/rule-set-lines.js';
import {plural, utc} from '../../text/format.js';
import {safeText} from '../../text/sanitize.js';
import {wrapIndented, wrapRow} from '../../text/wrap.js';

export function show(v: Value): string {
	if (v === null) {
		return 'NULL';
	}

	if (typeof v === 'object') {
		return 'hex' in v ? `<blob ${v.hex.length / 2} bytes>` : v.bigint;
	}

	// Escaped before it is wrapped and padded, so the before/after columns line up as shown; never cut.
	return safeText(typeof v === 'string' ? v : String(v));
}

/** The widths of the before/after table: the row label beside its columns when there is room, else above them. */
function tableLayout(width: number): {label: number; column: number; before: number; after: number} {
	if (width >= 120) {
		return {label: 33, column: 18, before: 30, after: width - 2 - 33 - 18 - 30 - 3};
	}

	const rest = Math.max(20, width - 4 - 18 - 2);
	const before = Math.floor(rest / 3);
	return {label: 0, column: 18, before, after: rest - before};
}

/** One adoption's columns before and after, values wrapped within their cells (never cut). */
function tableLines(a: Adoption, width: number): string[] {
	const t = tableLayout(width);
	const indent = t.label > 0 ? '  ' : '    ';
	const row = (label: string, column: string, before: string, after: string) =>
		wrapRow([
			...(t.label > 0 ? [{text: label, width: t.label}] : []),
			{text: column, width: t.column},
			{text: before, width: t.before},
			{text: after, width: t.after},
		]).map(l => indent + l);
	const lines =
		t.label > 0
			? row('row', 'column', 'before', 'after')
			: [`  ${'column'.padEnd(t.column + 2)} ${'before'.padEnd(t.before)} after`];
	for (const r of a.rows) {
		if (t.label === 0) {
			lines.push(`  ${r.role} ${r.sessionId}`);
		}

		r.columns.forEach((c, i) => {
			lines.push(
				...row(
					i === 0 ? `${r.role} ${r.sessionId}` : '',
					c.column,
					show(c.before),
					c.changes ? show(c.after) : '(kept)',
				),
			);
		});
	}

	return lines;
}

/** What becomes of the turns the gateway wrote into the donor after a restart (hermes-incidents.md §1.4). */
export function writtenSinceLines(a: Adoption): string[] {
	const w = a.writtenSinceRestart;
	if (!w) {
		return [];
	}

	return [
		`  after the restart the gateway ` +
			`wrote ${plural(w.userTurns, 'user turn')} ` +
			`(${plural(w.messages, 'message')}, ${utc(w.firstAt)} ` +
			`to ${utc(w.lastAt)} UTC) into ${a.donorId}: they stay there, out of the ` +
			`resumed context once ${a.donorId} is retired; still listed, searchable ` +
			`and reachable with /resume ${a.donorId}`,
		`  lineage will read ${a.donorId} → ${a.orphanId}, though ${a.donorId} ` +
			`holds the later turns: read the story by time with \`hfx ` +
			`timeline ${a.sessionKey}\``,
		`  next, if those turns matter: export them before applying, with ` +
			`\`hermes sessions export --session-id ${a.donorId}\``,
	];
}

/**
 * One adoption as lines of at most `width` columns (the command line passes no width: nothing
 * wraps but a before value wider than its column). Every value is shown whole.
 */
export function adoptionLines(a: Adoption, width = Number.POSITIVE_INFINITY): string[] {
	const wrap = (text: string, indent: number) => wrapIndented(text, width, indent);
	const lines = [
		...wrap(`→ adopt ${a.orphanId} (${plural(a.messageCount, 'message')}) into ${a.sessionKey}`, 2),
		...wrap(
			a.evidence === 'operator'
				? `  evidence: your choice of donor ${a.donorId} (repair-routing refuses this orphan)`
				: `  evidence ${a.evidence}; donor ${a.donorId}`,
			4,
		),
		...tableLines(a, width),
	];
	const skipped =
		a.writtenSinceRestart && a.restartAfter === a.orphanId ? ' (the conversation the restart skipped)' : '';
	lines.push(
		...wrap(
			`  a restart resumes: ` +
				`before ${a.restartBefore ?? 'a new session'}${a.rollbackRiskBefore ? ' (ROLLBACK RISK)' : ''} ` +
				`→ ` +
				`after ${a.restartAfter ?? 'a new session'}${skipped}${a.rollbackRiskAfter ? ' (still at risk)' : ''}`,
			4,
		),
	);
	for (const w of a.warnings) {
		lines.push(...wrap(`  ! ${w}`, 4));
	}

	lines.push(...writtenSinceLines(a).flatMap(l => wrap(l, 4)));
	return lines;
}

/** Whose store this is, which Hermes' rules decide, and what an upgrade or Hermes' own tool would do to it. */
export function generationNotes(
	location: {owner: string; ownerSource?: string},
	planned: Pick<Planned, 'analysis' | 'schema'>,
): string[] {
	const lines = [
		`owner profile ${location.owner} (${location.ownerSource ?? 'given'}) · ` +
			`rules of Hermes ${planned.analysis.rulesLabel}`,
		...rulesNotes(planned.analysis),
	];
	const upgrade = upgradeNotice(planned.schema);
	if (upgrade) {
		lines.push(`! ${upgrade.note}`, `  next: ${upgrade.next}`);
	}

	const crash = planned.analysis.repairRoutingCrash;
	if (crash) {
		lines.push(
			`✗ this store's own repair-routing fails (${crash.error}) on ` +
				`session ${crash.sessionId}: it adopts nothing here, and neither does ` +
				`hfx under its rules; \`hfx scan\` shows what current Hermes would decide`,
		);
	}

	return lines;
}

/** The installed build the plan's rules came from (issue #27), when one was looked for. */
export function rulesNotes(analysis: Planned['analysis']): string[] {
	return analysis.buildRules === null ? [] : [buildLine(analysis.buildRules)];
}

export function planLines(planned: Planned): string[] {
	const {plan} = planned;
	const lines: string[] = [];
	for (const a of plan.adoptions) {
		lines.push(...adoptionLines(a), '');
	}

	for (const o of plan.refused) {
		lines.push(
			`✗ not repairable ${o.orphanId} (${o.source || 'no source'}, ${plural(o.messageCount, 'message')}): ${o.reason}`,
		);
		lines.push(...candidateLines(o, planned.analysis.byId, planned.analysis.rollbacks).map(l => `    ${l}`));
	}

	if (plan.notSelected.length > 0) {
		lines.push(`(left out by --only: ${plan.notSelected.join(', ')})`);
	}

	return lines;
}
