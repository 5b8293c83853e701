/** The Grafana dashboard of contrib/grafana/: its queries (panel targets and template variables). */
import fs from 'node:fs';
import path from 'node:path';
import {ROOT} from './writer.js';

export const DASHBOARD = path.join(ROOT, 'contrib/grafana/hfx-dashboard.json');

type Dashboard = {
	panels: Array<{title: string; targets?: Array<{expr?: string}>}>;
	templating: {list: Array<{name: string; query?: unknown}>};
};

/** Every PromQL expression of the panels, then the template variables' queries (`label_values(...)`). */
export function dashboardQueries(): {panels: string[]; variables: string[]} {
	const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as Dashboard;
	const panels = dashboard.panels.flatMap(p => (p.targets ?? []).map(t => t.expr ?? ''));
	const variables = dashboard.templating.list.flatMap(v =>
		typeof v.query === 'object' && v.query !== null ? [(v.query as {query: string}).query] : [],
	);
	return {panels, variables};
}

/** A panel's expression as Grafana sends it with "All" profiles chosen. */
export function withAllProfiles(expr: string): string {
	return expr.replaceAll('$profile', '.*');
}
