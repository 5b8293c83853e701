/**
 * One table of key bindings. It drives the input handler, the footer hints and the `?` help
 * overlay, so a binding documented is a binding that works (and remapping has one place to go).
 */

export const PANES = ['sessions', 'detail', 'lineage', 'routing', 'findings', 'files', 'activity', 'backups'] as const;
export type Pane = typeof PANES[number];

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

export type Action =
	| 'quit' | 'help' | 'back' | 'filter' | 'next-pane' | 'prev-pane' | `pane-${number}`
	| 'down' | 'up' | 'page-down' | 'page-up' | 'top' | 'bottom' | 'open'
	| 'pause' | 'yank' | 'toggle-hidden' | 'cycle-source' | 'refresh' | 'repair'
	| 'backup-verify' | 'backup-drill' | 'backup-snapshot' | 'repair-apply';

/** Screens drawn over a pane that take their own keys. */
export type Overlay = 'repair';

export type KeyEvent = {
	input: string;
	upArrow?: boolean;
	downArrow?: boolean;
	leftArrow?: boolean;
	rightArrow?: boolean;
	pageUp?: boolean;
	pageDown?: boolean;
	home?: boolean;
	end?: boolean;
	return?: boolean;
	escape?: boolean;
	tab?: boolean;
	shift?: boolean;
	ctrl?: boolean;
};

type KeySpec = {input?: string; ctrl?: boolean; shift?: boolean; special?: 'upArrow' | 'downArrow' | 'leftArrow' | 'rightArrow' | 'pageUp' | 'pageDown' | 'home' | 'end' | 'return' | 'escape' | 'tab'};

export type Binding = {
	action: Action;
	keys: KeySpec[];
	/** How the key is written in hints and help. */
	label: string;
	description: string;
	/** Panes where it applies; omitted = everywhere (but not inside an overlay screen). */
	panes?: readonly Pane[];
	/** Applies only inside this overlay screen. */
	overlay?: Overlay;
	/** Shown in the footer (lower comes first); omitted = help only. */
	footer?: number;
	/** Footer text when it differs from the label + first words of the description. */
	hint?: string;
};

const LISTS: readonly Pane[] = ['sessions', 'detail', 'lineage', 'routing', 'findings', 'activity', 'files', 'backups'];

export const BINDINGS: readonly Binding[] = [
	{action: 'help', keys: [{input: '?'}], label: '?', description: 'help: every key, filterable', footer: 90, hint: '? help'},
	{action: 'quit', keys: [{input: 'q'}, {input: 'c', ctrl: true}], label: 'q', description: 'quit (Ctrl-C too); the terminal is restored', footer: 99, hint: 'q quit'},
	{action: 'back', keys: [{special: 'escape'}], label: 'Esc', description: 'back out one level: close help or filter, clear the filter, return to the previous pane'},
	{action: 'next-pane', keys: [{special: 'tab'}], label: 'Tab', description: 'next pane', footer: 80, hint: 'Tab/1-8 panes'},
	{action: 'prev-pane', keys: [{special: 'tab', shift: true}], label: 'S-Tab', description: 'previous pane'},
	...PANES.map((pane, i): Binding => ({action: `pane-${i + 1}`, keys: [{input: String(i + 1)}], label: String(i + 1), description: `${PANE_TITLES[pane]} pane`})),
	{action: 'down', keys: [{input: 'j'}, {special: 'downArrow'}], label: 'j/↓', description: 'move down', panes: LISTS, footer: 10, hint: 'j/k move'},
	{action: 'up', keys: [{input: 'k'}, {special: 'upArrow'}], label: 'k/↑', description: 'move up', panes: LISTS},
	{action: 'page-down', keys: [{input: 'd', ctrl: true}, {special: 'pageDown'}], label: 'C-d', description: 'half a page down (PgDn too)', panes: LISTS},
	{action: 'page-up', keys: [{input: 'u', ctrl: true}, {special: 'pageUp'}], label: 'C-u', description: 'half a page up (PgUp too)', panes: LISTS},
	{action: 'top', keys: [{input: 'g'}, {special: 'home'}], label: 'g', description: 'first row (Home too)', panes: LISTS},
	{action: 'bottom', keys: [{input: 'G'}, {special: 'end'}], label: 'G', description: 'last row (End too)', panes: LISTS},
	{action: 'open', keys: [{special: 'return'}], label: '⏎', description: 'open: the selected session\'s detail (from sessions, lineage, routing, findings)', panes: ['sessions', 'lineage', 'routing', 'findings', 'activity'], footer: 20, hint: '⏎ open'},
	{action: 'filter', keys: [{input: '/'}], label: '/', description: 'fuzzy filter (id, title, session key, chat, display name)', panes: ['sessions', 'routing', 'findings', 'activity'], footer: 30, hint: '/ filter'},
	{action: 'toggle-hidden', keys: [{input: 't'}], label: 't', description: 'show or hide tool and delegate rows', panes: ['sessions'], footer: 40, hint: 't tool rows'},
	{action: 'cycle-source', keys: [{input: 's'}], label: 's', description: 'filter by source: cycles all, telegram, discord, cli…', panes: ['sessions'], footer: 41, hint: 's source'},
	{action: 'repair', keys: [{input: 'r'}], label: 'r', description: 'preview the repair of the selected orphan (hfx repair)', panes: ['findings'], footer: 42, hint: 'r repair'},
	{action: 'backup-verify', keys: [{input: 'v'}], label: 'v', description: 'verify the selected backup', panes: ['backups'], footer: 43, hint: 'v verify'},
	{action: 'backup-drill', keys: [{input: 'D'}], label: 'D', description: 'restore drill of the selected backup into a scratch folder', panes: ['backups'], footer: 44, hint: 'D drill'},
	{action: 'backup-snapshot', keys: [{input: 'S'}], label: 'S', description: 'take a quick snapshot now', panes: ['backups'], footer: 45, hint: 'S snapshot'},
	{action: 'pause', keys: [{input: 'p'}], label: 'p', description: 'pause or resume live updates', footer: 50, hint: 'p pause'},
	{action: 'yank', keys: [{input: 'y'}], label: 'y', description: 'copy the selected id (OSC 52); printed again on exit', footer: 60, hint: 'y copy'},
	{action: 'refresh', keys: [{input: 'l', ctrl: true}], label: 'C-l', description: 're-read the store now and redraw'},
	{action: 'repair-apply', keys: [{input: 'a'}], label: 'a', description: 'apply the previewed repair (only once every precondition holds; then type the confirmation)', overlay: 'repair', footer: 1, hint: 'a apply'},
	{action: 'back', keys: [{special: 'escape'}], label: 'Esc', description: 'leave the repair preview (nothing is written)', overlay: 'repair', footer: 2, hint: 'Esc back'},
];

function matches(spec: KeySpec, key: KeyEvent): boolean {
	if (spec.special) {
		if (!key[spec.special]) {
			return false;
		}

		return spec.special === 'tab' ? Boolean(spec.shift) === Boolean(key.shift) : true;
	}

	if (Boolean(spec.ctrl) !== Boolean(key.ctrl)) {
		return false;
	}

	return spec.input === key.input;
}

export function bindingsFor(pane: Pane, overlay?: Overlay): Binding[] {
	return overlay
		? BINDINGS.filter(b => b.overlay === overlay)
		: BINDINGS.filter(b => !b.overlay && (!b.panes || b.panes.includes(pane)));
}

export function resolveAction(key: KeyEvent, pane: Pane, overlay?: Overlay): Action | undefined {
	return bindingsFor(pane, overlay).find(b => b.keys.some(spec => matches(spec, key)))?.action;
}

/** Footer hints for a pane (or an overlay screen), in order: the pane's own keys, then the global ones. */
export function footerHints(pane: Pane, overlay?: Overlay): string[] {
	return bindingsFor(pane, overlay)
		.filter(b => b.footer !== undefined)
		.sort((a, b) => a.footer! - b.footer!)
		.map(b => b.hint ?? `${b.label} ${b.description.split(/[:(;,]/)[0]!.trim()}`);
}

/** Help rows, optionally filtered by a query matched against label and description. The pane jumps share one row. */
export function helpRows(query: string): Array<{label: string; description: string; where: string}> {
	const q = query.trim().toLowerCase();
	const rows: Array<{label: string; description: string; where: string}> = [];
	for (const b of BINDINGS) {
		if (/^pane-\d+$/.test(b.action)) {
			if (b.action === 'pane-1') {
				rows.push({label: `1-${PANES.length}`, description: `jump to a pane: ${PANES.map((p, i) => `${i + 1} ${PANE_TITLES[p]}`).join(', ')}`, where: 'everywhere'});
			}

			continue;
		}

		rows.push({label: b.label, description: b.description, where: b.overlay ? `${b.overlay} preview` : (b.panes ? (b.panes.length === LISTS.length ? 'lists' : b.panes.map(p => PANE_TITLES[p]).join(', ')) : 'everywhere')});
	}

	return rows.filter(r => !q || `${r.label} ${r.description} ${r.where}`.toLowerCase().includes(q));
}
