/**
 * The whole Hermes home in the live view (a root with profiles): every profile's model, which one
 * the panes show, and what is said across them (the header's count and the profiles at risk, the
 * findings of every profile, each naming its profile). Pure: unit-tested without Ink.
 */
import type {Finding} from '../../forensics/finding.js';
import type {LiveModel} from '../../live/live.js';
import {plural} from '../../text/format.js';

/** One profile's store as the TUI follows it. */
export type ProfileModel = {name: string; model: LiveModel};

/**
 * Every profile's newest model, the one the panes show, and the profiles whose store could not be opened (said, never
 * dropped silently).
 */
export type HomeView = {
	profiles: readonly ProfileModel[];
	focused: string;
	unreadable?: ReadonlyArray<{name: string; reason: string}>;
};

/** A finding of one profile, said across the home. */
export type ProfileFinding = Finding & {profile: string};

/** What puts a profile at risk, worst first: a chat a restart would roll back, then a rollback that happened. */
export function profileRisk(model: LiveModel): 'rollback risk' | 'rolled back' | 'error' | null {
	if (model.error) {
		return 'error';
	}

	if (model.analysis.routing.some(r => r.rollbackRisk)) {
		return 'rollback risk';
	}

	return model.analysis.rollbacks.length > 0 ? 'rolled back' : null;
}

/** The profiles at risk, each with what puts it there, in profile order (a store that could not be opened last). */
export function profilesAtRisk(view: HomeView): Array<{name: string; risk: string}> {
	return [
		...view.profiles.flatMap(p => {
			const risk = profileRisk(p.model);
			return risk ? [{name: p.name, risk}] : [];
		}),
		...(view.unreadable ?? []).map(u => ({name: u.name, risk: 'unreadable'})),
	];
}

/** The header's word on the home: "3 profiles · work ✗ rollback risk" (two or more at risk: "✗ work, ops at risk"). */
export function profilesSummary(view: HomeView): string {
	const count = plural(view.profiles.length + (view.unreadable?.length ?? 0), 'profile');
	const risky = profilesAtRisk(view);
	if (risky.length === 0) {
		return `${count} · none at risk`;
	}

	return risky.length === 1
		? `${count} · ${risky[0]!.name} ✗ ${risky[0]!.risk}`
		: `${count} · ✗ ${risky.map(r => r.name).join(', ')} at risk`;
}

const RANK: Record<Finding['severity'], number> = {critical: 0, warning: 1, info: 2};

/**
 * Every profile's findings in one list, each title naming its profile ("[work] ✗ …" as the pane
 * draws it): the most severe first across profiles; within a severity, the focused profile's
 * first, then the others in profile order, each profile's own order kept.
 */
export function mergedFindings(view: HomeView): ProfileFinding[] {
	const ordered = [
		...view.profiles.filter(p => p.name === view.focused),
		...view.profiles.filter(p => p.name !== view.focused),
	];
	const all = ordered.flatMap(p =>
		p.model.analysis.findings.map(f => ({...f, profile: p.name, title: `[${p.name}] ${f.title}`})),
	);
	return all
		.map((f, i) => ({f, i}))
		.sort((a, b) => RANK[a.f.severity] - RANK[b.f.severity] || a.i - b.i)
		.map(x => x.f);
}

/** The focused profile's model. */
export function focusedModel(view: HomeView): LiveModel {
	return (view.profiles.find(p => p.name === view.focused) ?? view.profiles[0]!).model;
}
