/**
 * The panes, in tab order, and their titles: the one list the tabs, the number keys and the
 * pane specs are keyed by.
 */

export const PANES = ['sessions', 'detail', 'lineage', 'routing', 'findings', 'files', 'activity', 'backups'] as const;
export type Pane = (typeof PANES)[number];

export const PANE_TITLES: Record<Pane, string> = {
	sessions: 'Sessions',
	detail: 'Detail',
	lineage: 'Lineage',
	routing: 'Routing',
	findings: 'Findings',
	files: 'Files',
	activity: 'Activity',
	backups: 'Backups',
};
