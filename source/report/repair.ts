/**
 * The repair plan as text: each adoption's columns before and after, what a restart resumes
 * before and after, the warnings, the refusals, and the store's generation notes. Shared by
 * `hfx repair` and the TUI's repair flow (a renderer below both).
 */
import type {Planned} from '../repair/apply.js';
import type {Adoption, Value} from '../repair/plan.js';
import {upgradeNotice} from '../store/load.js';
import {plural} from '../text/format.js';
import {safeText} from '../text/sanitize.js';

export function show(v: Value): string {
	if (v === null) {
		return 'NULL';
	}

	if (typeof v === 'object') {
		return 'hex' in v ? `<blob ${v.hex.length / 2} bytes>` : v.bigint;
	}

	// Escaped before it is cut and padded, so the before/after columns line up as shown.
	const text = safeText(typeof v === 'string' ? v : String(v));
	return text.length > 46 ? `${text.slice(0, 45)}…` : text;
}

export function adoptionLines(a: Adoption): string[] {
	const lines = [
		`→ adopt ${a.orphanId} (${plural(a.messageCount, 'message')}) into ${a.sessionKey}`,
		`  evidence ${a.evidence}; donor ${a.donorId}`,
		`  ${'row'.padEnd(33)} ${'column'.padEnd(18)} ${'before'.padEnd(30)} after`,
	];
	for (const row of a.rows) {
		row.columns.forEach((c, i) => {
			const label = i === 0 ? `${row.role} ${row.sessionId}` : '';
			lines.push(`  ${label.padEnd(33)} ${c.column.padEnd(18)} ${show(c.before).padEnd(30)} ${c.changes ? show(c.after) : '(kept)'}`);
		});
	}

	lines.push(`  a restart resumes: before ${a.restartBefore ?? 'a new session'}${a.rollbackRiskBefore ? ' (ROLLBACK RISK)' : ''} → after ${a.restartAfter ?? 'a new session'}${a.rollbackRiskAfter ? ' (still at risk)' : ''}`);
	for (const w of a.warnings) {
		lines.push(`  ! ${w}`);
	}

	return lines;
}

/** Whose store this is, which Hermes' rules decide, and what an upgrade or Hermes' own tool would do to it. */
export function generationNotes(location: {owner: string; ownerSource?: string}, planned: Pick<Planned, 'analysis' | 'schema'>): string[] {
	const lines = [`owner profile ${location.owner} (${location.ownerSource ?? 'given'}) · rules of Hermes ${planned.analysis.ruleSet}`];
	const upgrade = upgradeNotice(planned.schema);
	if (upgrade) {
		lines.push(`! ${upgrade.note}`, `  next: ${upgrade.next}`);
	}

	const crash = planned.analysis.repairRoutingCrash;
	if (crash) {
		lines.push(`✗ this store's own repair-routing fails (${crash.error}) on session ${crash.sessionId}: it adopts nothing here, and neither does hfx under its rules; \`hfx scan\` shows what current Hermes would decide`);
	}

	return lines;
}

export function planLines(planned: Planned): string[] {
	const {plan} = planned;
	const lines: string[] = [];
	for (const a of plan.adoptions) {
		lines.push(...adoptionLines(a), '');
	}

	for (const o of plan.refused) {
		lines.push(`✗ not repairable ${o.orphanId} (${o.source || 'no source'}, ${plural(o.messageCount, 'message')}): ${o.reason}`);
	}

	if (plan.notSelected.length > 0) {
		lines.push(`(left out by --only: ${plan.notSelected.join(', ')})`);
	}

	return lines;
}
