/**
 * The one table of key bindings, handlers included. It drives the input handlers, the footer
 * hints and the `?` help, of the panes and of every overlay alike: a binding documented is a
 * binding that works, and adding or remapping a key is one entry here.
 */
import {PANES, PANE_TITLES, type Pane} from './pane-names.js';
import type {AnyBinding, Binding} from './keys/binding.js';
import type {RepairKeys, ScreenKeys, TimelineKeys, UndoKeys} from './keys/contexts.js';
import {sourcesOf} from './views.js';
import {candidateDonors} from '../report/analysis/candidates.js';
import {helpView} from './help-view.js';

/** The panes with a cursor (all of them today; "lists" in the help). */
export const LISTS: readonly Pane[] = [
	'sessions',
	'detail',
	'lineage',
	'routing',
	'findings',
	'activity',
	'files',
	'backups',
];

const quit = (c: ScreenKeys): void => c.quit();
const back = (c: ScreenKeys): void => c.dispatch({type: 'back'});
const move = (c: ScreenKeys, delta: number): void =>
	c.dispatch({type: 'move', delta, rows: c.rows(), from: c.from(), ids: c.ids()});
const moveTo = (c: ScreenKeys, index: number): void =>
	c.dispatch({type: 'move-to', index, rows: c.rows(), ids: c.ids()});

/** The lists `/` filters (and n/N step through). */
const FILTERABLE: readonly Pane[] = ['sessions', 'routing', 'findings', 'activity'];
const noFilter = (c: ScreenKeys): string | null =>
	c.ui.filterText ? null : 'no filter: / to filter, then n/N step through its matches';
const step = (c: ScreenKeys, delta: 1 | -1): void =>
	c.dispatch({type: 'move', delta, rows: c.rows(), ids: c.ids(), wrap: true});

function backup(which: 'verify' | 'drill') {
	return (c: ScreenKeys): void => {
		const entry = c.backupsModel?.entries[c.ui.cursor.backups];
		if (entry && c.backups) {
			c.backups[which](entry.path);
		}
	};
}

/** The selected orphan; on a rollback that happened, the keyless row holding what it skipped. */
function selectedOrphan(c: ScreenKeys) {
	const id = c.selectedId();
	const skipped = c.model.analysis.rollbacks.find(r => r.sessionKey === id && r.skipped.kind === 'keyless')?.skipped.id;
	return c.model.analysis.orphans.find(o => o.orphanId === (skipped ?? id)) ?? null;
}

/** The candidate donors of the selected orphan, when repair-routing refuses it. */
function candidatesOf(c: ScreenKeys): string[] {
	const orphan = selectedOrphan(c);
	return orphan ? candidateDonors(orphan, c.model.analysis.byId, c.model.analysis.rollbacks).map(d => d.id) : [];
}

function repairRefusal(c: ScreenKeys): string | null {
	const orphan = selectedOrphan(c);
	if (!orphan) {
		return 'select an orphan finding to repair';
	}

	return orphan.verdict === 'adoptable'
		? null
		: `repair-routing ` +
				`refuses ${orphan.orphanId}` +
				`${candidatesOf(c).length > 0 ? ' (d adopts it from a candidate donor, your choice)' : ''}: ${orphan.reason}`;
}

function adoptionRefusal(c: ScreenKeys): string | null {
	const orphan = selectedOrphan(c);
	if (!orphan || orphan.verdict === 'adoptable') {
		return orphan
			? `repair-routing adopts ${orphan.orphanId} itself: r previews it`
			: 'select an orphan repair-routing refuses';
	}

	return candidatesOf(c).length > 0
		? null
		: `${orphan.orphanId} has no candidate donor (${orphan.reasonKind}): name ` +
				`one with hfx repair --only ORPHAN --donor DONOR`;
}

function openAdoption(c: ScreenKeys): void {
	const orphan = selectedOrphan(c)!;
	if (c.repair) {
		c.dispatch({type: 'repair', orphanId: orphan.orphanId, donors: candidatesOf(c)});
	} else {
		c.notice(
			`preview it with: hfx repair --db ${c.model.facts.path} --only ${orphan.orphanId} --donor ${candidatesOf(c)[0]}`,
		);
	}
}

function openRepair(c: ScreenKeys): void {
	const id = c.selectedId();
	if (c.repair && id) {
		c.dispatch({type: 'repair', orphanId: id});
	} else {
		c.notice(`preview the repair with: hfx repair --db ${c.model.facts.path}`);
	}
}

/** What the timeline key names: the selected chat (Routing), finding's subject (Findings) or session. */
function chatNameOf(c: ScreenKeys): string | null {
	return c.yankText() ?? c.selectedId();
}

/** The panes with a chat, an orphan, a finding or a session under the cursor: T opens its timeline. */
const WITH_A_CHAT: readonly Pane[] = ['sessions', 'detail', 'lineage', 'routing', 'findings'];

function paneJump(pane: Pane, i: number): Binding<ScreenKeys> {
	const help =
		i === 0
			? {
					label: `1-${PANES.length}`,
					description: `jump to a pane: ${PANES.map((p, j) => `${j + 1} ${PANE_TITLES[p]}`).join(', ')}`,
				}
			: (false as const);
	return {
		id: `pane-${i + 1}`,
		keys: [{input: String(i + 1)}],
		label: String(i + 1),
		description: `${PANE_TITLES[pane]} pane`,
		help,
		run: c => c.dispatch({type: 'pane', pane}),
	};
}

/**
 * ⏎: the selected session's detail; a content hit of another profile focuses that profile first (its row is in that
 * store).
 */
function openSelected(c: ScreenKeys): void {
	const elsewhere = c.home ? c.selectedElsewhere() : null;
	if (elsewhere) {
		c.home!.focus(elsewhere.profile);
		c.notice(`profile ${elsewhere.profile}`);
	}

	const id = elsewhere?.id ?? c.selectedId();
	if (id) {
		c.dispatch({type: 'open-session', id});
	}
}

/** Scrolls the help by `delta` rows, within its rows (helpView: the rows it shows under its title). */
function helpScroll(c: ScreenKeys, delta: number): void {
	const rows = c.helpRows();
	const {top} = helpView(rows, c.body, c.ui.helpScroll);
	c.dispatch({type: 'help-scroll', to: helpView(rows, c.body, top + delta).top});
}

/** Keys of the main screen: every pane, and the help and filter overlays drawn over one. */
const SCREEN: ReadonlyArray<Binding<ScreenKeys>> = [
	{
		id: 'help',
		keys: [{input: '?'}],
		label: '?',
		description: 'help: every key, filterable',
		footer: 90,
		hint: '? help',
		pinned: true,
		run: c => c.dispatch({type: 'overlay', overlay: 'help'}),
	},
	{
		id: 'quit',
		keys: [{input: 'q'}, {input: 'c', ctrl: true}],
		label: 'q',
		description: 'quit (Ctrl-C too); the terminal is restored',
		footer: 99,
		hint: 'q quit',
		pinned: true,
		run: quit,
	},
	{
		id: 'back',
		keys: [{special: 'escape'}],
		label: 'Esc',
		description: 'back out one level: close help or filter, clear the filter, return to the previous pane',
		run: back,
	},
	{
		id: 'next-pane',
		keys: [{special: 'tab'}, {input: 'l'}, {special: 'rightArrow'}],
		label: 'Tab/l/→',
		description: 'next pane',
		footer: 80,
		hint: 'Tab/1-8 panes',
		run: c => c.dispatch({type: 'cycle-pane', delta: 1}),
	},
	{
		id: 'prev-pane',
		keys: [{special: 'tab', shift: true}, {input: 'h'}, {special: 'leftArrow'}],
		label: 'S-Tab/h/←',
		description: 'previous pane',
		run: c => c.dispatch({type: 'cycle-pane', delta: -1}),
	},
	...PANES.map(paneJump),
	{
		id: 'down',
		keys: [{input: 'j'}, {special: 'downArrow'}],
		label: 'j/↓',
		description: 'move down',
		panes: LISTS,
		footer: 10,
		hint: 'j/k move',
		run: c => move(c, 1),
	},
	{
		id: 'up',
		keys: [{input: 'k'}, {special: 'upArrow'}],
		label: 'k/↑',
		description: 'move up',
		panes: LISTS,
		run: c => move(c, -1),
	},
	{
		id: 'page-down',
		keys: [{input: 'd', ctrl: true}, {special: 'pageDown'}],
		label: 'C-d',
		description: 'half a page down (PgDn too)',
		panes: LISTS,
		run: c => move(c, c.half),
	},
	{
		id: 'page-up',
		keys: [{input: 'u', ctrl: true}, {special: 'pageUp'}],
		label: 'C-u',
		description: 'half a page up (PgUp too)',
		panes: LISTS,
		run: c => move(c, -c.half),
	},
	{
		id: 'top',
		keys: [{input: 'g'}, {special: 'home'}],
		label: 'g',
		description: 'first row (Home too)',
		panes: LISTS,
		run: c => moveTo(c, 0),
	},
	{
		id: 'bottom',
		keys: [{input: 'G'}, {special: 'end'}],
		label: 'G',
		description: 'last row (End too)',
		panes: LISTS,
		run: c => moveTo(c, c.rows() - 1),
	},
	{
		id: 'open',
		keys: [{special: 'return'}],
		label: '⏎',
		description:
			"open: the selected session's detail (from sessions, lineage, routing, " +
			'findings); a content hit of another profile focuses that profile first',
		panes: ['sessions', 'lineage', 'routing', 'findings', 'activity'],
		footer: 20,
		hint: '⏎ open',
		run: openSelected,
	},
	{
		id: 'filter',
		keys: [{input: '/'}],
		label: '/',
		description: 'fuzzy filter (id, title, session key, chat, display name); Tab in it: search message content',
		panes: FILTERABLE,
		footer: 30,
		hint: '/ filter',
		run: c => c.dispatch({type: 'overlay', overlay: 'filter'}),
	},
	{
		id: 'next-match',
		keys: [{input: 'n'}],
		label: 'n',
		description: 'next match of the filter (wraps around)',
		panes: FILTERABLE,
		disabledReason: noFilter,
		run: c => step(c, 1),
	},
	{
		id: 'prev-match',
		keys: [{input: 'N'}],
		label: 'N',
		description: 'previous match of the filter (wraps around)',
		panes: FILTERABLE,
		disabledReason: noFilter,
		run: c => step(c, -1),
	},
	{
		id: 'toggle-hidden',
		keys: [{input: 't'}],
		label: 't',
		description: 'show or hide tool and delegate rows',
		panes: ['sessions'],
		footer: 40,
		hint: 't tool rows',
		run: c => c.dispatch({type: 'toggle-hidden'}),
	},
	{
		id: 'cycle-source',
		keys: [{input: 's'}],
		label: 's',
		description: 'filter by source: cycles all, telegram, discord, cli…',
		panes: ['sessions'],
		footer: 41,
		hint: 's source',
		run: c => c.dispatch({type: 'cycle-source', sources: sourcesOf(c.model.analysis)}),
	},
	{
		id: 'repair',
		keys: [{input: 'r'}],
		label: 'r',
		description: 'preview the repair of the selected orphan (hfx repair)',
		panes: ['findings'],
		footer: 42,
		hint: 'r repair',
		disabledReason: repairRefusal,
		run: openRepair,
	},
	{
		id: 'backup-verify',
		keys: [{input: 'v'}],
		label: 'v',
		description: 'verify the selected backup',
		panes: ['backups'],
		footer: 43,
		hint: 'v verify',
		run: backup('verify'),
	},
	{
		id: 'backup-drill',
		keys: [{input: 'D'}],
		label: 'D',
		description: 'restore drill of the selected backup into a scratch folder',
		panes: ['backups'],
		footer: 44,
		hint: 'D drill',
		run: backup('drill'),
	},
	{
		id: 'backup-snapshot',
		keys: [{input: 'S'}],
		label: 'S',
		description: 'take a quick snapshot now (on a root with profiles, of the focused one)',
		panes: ['backups'],
		footer: 45,
		hint: 'S snapshot',
		run: c => c.backups?.snapshot(),
	},
	{
		id: 'pause',
		keys: [{input: 'p'}],
		label: 'p',
		description: 'pause or resume live updates',
		footer: 50,
		hint: 'p pause',
		hintNow: s => (s.paused ? 'p resume' : 'p pause'),
		run(c) {
			c.live.setPaused?.(!c.ui.paused);
			c.dispatch({type: 'toggle-pause'});
		},
	},
	{
		id: 'next-profile',
		keys: [{input: 'P'}],
		label: 'P',
		description:
			'focus the next profile of the Hermes root (hfx without --profile ' +
			'follows them all): Sessions, Detail, Lineage, Routing, Files and ' +
			'Activity show its store',
		disabledReason: c =>
			c.home && c.home.model.profiles.length > 1
				? null
				: 'one store is followed: hfx without --profile on a root with profiles follows them all',
		run(c) {
			c.home!.cycle(1);
			c.dispatch({type: 'select-session', id: null});
			c.notice(`profile ${c.home!.model.focused}`);
		},
	},
	{
		id: 'yank',
		keys: [{input: 'y'}],
		label: 'y',
		description: 'copy the selected id (OSC 52); printed again on exit',
		footer: 60,
		hint: 'y copy',
		run(c) {
			const text = c.yankText() ?? c.selectedId();
			if (text) {
				c.copy(text);
				c.dispatch({type: 'yank', id: text});
			}
		},
	},
	{
		id: 'refresh',
		keys: [{input: 'l', ctrl: true}],
		label: 'C-l',
		description: 're-read the store now and redraw',
		run(c) {
			c.live.refresh(true);
			c.notice('re-read');
		},
	},
	{
		id: 'follow',
		keys: [{input: 'f'}],
		label: 'f',
		description:
			'follow the newest event again (on from the start; moving the cursor leaves it, the list header says which)',
		panes: ['activity'],
		footer: 15,
		hint: 'f follow',
		run(c) {
			c.dispatch({type: 'follow', pane: c.ui.pane});
			c.notice('following the newest event');
		},
	},
	{
		id: 'wrap',
		keys: [{input: 'w'}],
		label: 'w',
		description:
			"wrap the long lines of the focused pane's list, or cut them again (read " +
			'a cut line whole); below 120 columns the detail under a list wraps anyway',
		panes: LISTS,
		footer: 66,
		hint: 'w wrap',
		run: c => c.dispatch({type: 'toggle-wrap'}),
	},
	{
		id: 'timeline',
		keys: [{input: 'T'}],
		label: 'T',
		description:
			'timeline of the selected chat, orphan, finding or session: its rows and events on one time axis (hfx timeline)',
		panes: WITH_A_CHAT,
		footer: 65,
		hint: 'T timeline',
		disabledReason: c => (chatNameOf(c) ? null : 'select a chat, a session or a finding first'),
		run: c => c.dispatch({type: 'timeline', chat: chatNameOf(c)}),
	},
	{
		id: 'adopt-from-donor',
		keys: [{input: 'd'}],
		label: 'd',
		description:
			'adopt the selected orphan repair-routing refuses from a candidate ' +
			'donor: your choice, previewed (hfx repair --only ORPHAN --donor DONOR)',
		panes: ['findings'],
		disabledReason: adoptionRefusal,
		run: openAdoption,
	},
	{
		id: 'undo',
		keys: [{input: 'u'}],
		label: 'u',
		description:
			'undo an applied repair of the audit trail (hfx repair --undo SEQ): the ' +
			'newest first, previewed, typed confirmation',
		panes: ['findings'],
		footer: 43,
		hint: 'u undo',
		disabledReason: c => (c.repair?.undo ? null : 'no repair back end here: undo with hfx repair --undo SEQ'),
		run: c => c.dispatch({type: 'undo', undo: {seq: null}}),
	},
	// The help overlay: typing filters it; the Esc row above and its own title describe these.
	{
		id: 'help-close',
		keys: [{special: 'escape'}],
		label: 'Esc',
		description: 'close the help',
		overlay: 'help',
		help: false,
		run: back,
	},
	{
		id: 'help-erase',
		keys: [{special: 'backspace'}, {special: 'delete'}],
		label: '⌫',
		description: 'erase a character of the help filter',
		overlay: 'help',
		help: false,
		run: c => c.dispatch({type: 'help-text', text: c.ui.helpText.slice(0, -1)}),
	},
	{
		id: 'help-quit',
		keys: [{input: 'c', ctrl: true}],
		label: 'C-c',
		description: 'quit',
		overlay: 'help',
		help: false,
		run: quit,
	},
	{
		id: 'help-toggle',
		keys: [{input: '?', anyCtrl: true}],
		label: '?',
		description: 'close the help',
		overlay: 'help',
		help: false,
		run: back,
	},
	{
		id: 'help-down',
		keys: [{special: 'downArrow'}],
		label: '↓/↑',
		description: 'in the help: scroll a line down or up (PgDn/PgUp, C-d/C-u a page, Home/End the ends)',
		overlay: 'help',
		run: c => helpScroll(c, 1),
	},
	{
		id: 'help-up',
		keys: [{special: 'upArrow'}],
		label: '↑',
		description: 'scroll the help a line up',
		overlay: 'help',
		help: false,
		run: c => helpScroll(c, -1),
	},
	{
		id: 'help-page-down',
		keys: [{special: 'pageDown'}, {input: 'd', ctrl: true}],
		label: 'PgDn',
		description: 'scroll the help a page down',
		overlay: 'help',
		help: false,
		run: c => helpScroll(c, c.half),
	},
	{
		id: 'help-page-up',
		keys: [{special: 'pageUp'}, {input: 'u', ctrl: true}],
		label: 'PgUp',
		description: 'scroll the help a page up',
		overlay: 'help',
		help: false,
		run: c => helpScroll(c, -c.half),
	},
	{
		id: 'help-top',
		keys: [{special: 'home'}],
		label: 'Home',
		description: "the help's first key",
		overlay: 'help',
		help: false,
		run: c => c.dispatch({type: 'help-scroll', to: 0}),
	},
	{
		id: 'help-bottom',
		keys: [{special: 'end'}],
		label: 'End',
		description: "the help's last key",
		overlay: 'help',
		help: false,
		run: c => helpScroll(c, Number.MAX_SAFE_INTEGER),
	},
	{
		id: 'help-type',
		keys: [{typed: true}],
		label: 'text',
		description: 'filter the help',
		overlay: 'help',
		help: false,
		run: (c, key) => c.dispatch({type: 'help-text', text: c.ui.helpText + key.input}),
	},
	// The filter line: its text input takes every other key (⏎ keeps the filter).
	{
		id: 'filter-clear',
		keys: [{special: 'escape'}],
		label: 'Esc',
		description: 'clear the filter',
		overlay: 'filter',
		help: false,
		run: back,
	},
	{
		id: 'filter-mode',
		keys: [{special: 'tab'}],
		label: 'Tab',
		description:
			'in the / line: switch between the fuzzy filter and a content search of ' +
			'the messages (⏎ lists the rows whose messages hold the words, each with ' +
			'its chat, "keyless: orphan" included, and a snippet; ⏎ on one opens its ' +
			'detail; Esc returns to every session)',
		overlay: 'filter',
		run: c => c.dispatch({type: 'filter-mode'}),
	},
];

/** Keys of the repair flow: its preview, and its typed confirmation (whose text input takes the rest). */
const REPAIR: ReadonlyArray<Binding<RepairKeys>> = [
	{
		id: 'repair-apply',
		keys: [{input: 'a'}],
		label: 'a',
		description: 'apply the previewed repair (only once every precondition holds; then type the confirmation)',
		overlay: 'repair',
		footer: 1,
		hint: 'a apply',
		active: c => c.stage === 'preview' && !c.applied,
		disabledReason: c => (c.ready ? null : 'apply is disabled until every precondition holds (see the checklist)'),
		run: c => c.confirm(),
	},
	{
		id: 'repair-undo',
		keys: [{input: 'u'}],
		label: 'u',
		description: 'undo the repair just applied (its preview first, then a typed confirmation)',
		overlay: 'repair',
		footer: 1,
		hint: 'u undo',
		active: c => c.applied,
		run: c => c.undo(),
	},
	{
		id: 'repair-back',
		keys: [{special: 'escape'}],
		label: 'Esc',
		description: "leave the repair preview (nothing is written), or close an applied repair's result",
		overlay: 'repair',
		footer: 2,
		hint: 'Esc back',
		hintIn: c => (c.applied ? 'Esc close' : null),
		active: c => c.stage !== 'applying',
		run: c => c.close(),
	},
	{
		id: 'repair-donor',
		keys: [{input: 'd'}],
		label: 'd',
		description: 'the next candidate donor of an orphan repair-routing refuses (your choice; re-planned, previewed)',
		overlay: 'repair',
		footer: 3,
		hint: 'd next donor',
		active: c => c.donors > 1 && (c.stage === 'preview' || c.stage === 'planning'),
		run: c => c.nextDonor(),
	},
	{
		id: 'repair-down',
		keys: [{input: 'j'}, {special: 'downArrow'}],
		label: 'j/k',
		description: 'scroll the repair preview a line down or up (↑/↓ too)',
		overlay: 'repair',
		footer: 3,
		hint: 'j/k scroll',
		continuesBurst: true,
		run: c => c.scroll(1),
	},
	{
		id: 'repair-up',
		keys: [{input: 'k'}, {special: 'upArrow'}],
		label: 'k/↑',
		description: 'scroll the repair preview a line up',
		overlay: 'repair',
		help: false,
		continuesBurst: true,
		run: c => c.scroll(-1),
	},
	{
		id: 'repair-page-down',
		keys: [{input: 'd', ctrl: true}, {special: 'pageDown'}],
		label: 'C-d/C-u',
		description: 'scroll the repair preview half a page down or up (PgDn/PgUp too)',
		overlay: 'repair',
		continuesBurst: true,
		run: c => c.scroll(c.half),
	},
	{
		id: 'repair-page-up',
		keys: [{input: 'u', ctrl: true}, {special: 'pageUp'}],
		label: 'C-u',
		description: 'scroll the repair preview half a page up',
		overlay: 'repair',
		help: false,
		continuesBurst: true,
		run: c => c.scroll(-c.half),
	},
	{
		id: 'repair-top',
		keys: [{input: 'g'}, {special: 'home'}],
		label: 'g/G',
		description: "the repair preview's first or last line (Home/End too)",
		overlay: 'repair',
		continuesBurst: true,
		run: c => c.scroll('top'),
	},
	{
		id: 'repair-bottom',
		keys: [{input: 'G'}, {special: 'end'}],
		label: 'G',
		description: "the repair preview's last line",
		overlay: 'repair',
		help: false,
		continuesBurst: true,
		run: c => c.scroll('bottom'),
	},
	{
		id: 'confirm-cancel',
		keys: [{special: 'escape'}],
		label: 'Esc',
		description: 'cancel the confirmation (nothing is written)',
		overlay: 'confirm',
		help: false,
		run: c => c.notice('not confirmed: nothing was written'),
	},
	{
		id: 'confirm-submit',
		keys: [{special: 'return'}],
		label: '⏎',
		description: 'confirm with the typed answer',
		overlay: 'confirm',
		help: false,
		run: c => c.answer.submit(),
	},
	{
		id: 'confirm-erase',
		keys: [{special: 'backspace'}, {special: 'delete'}],
		label: '⌫',
		description: 'erase a character of the answer',
		overlay: 'confirm',
		help: false,
		run: c => c.answer.erase(),
	},
	{
		id: 'confirm-type',
		keys: [{typed: true}],
		label: 'text',
		description: 'type the confirmation (a pasted answer ending in a newline submits itself)',
		overlay: 'confirm',
		help: false,
		run: (c, key) => c.answer.type(key.input),
	},
];

/** Keys of the undo flow: its preview of the audit trail's applied repairs, and its typed confirmation. */
const UNDO: ReadonlyArray<Binding<UndoKeys>> = [
	{
		id: 'undo-do',
		keys: [{input: 'u'}],
		label: 'u',
		description: 'undo the chosen applied repair (only once every precondition holds; then type undo)',
		overlay: 'undo',
		footer: 1,
		hint: 'u undo',
		active: c => c.stage === 'preview' && c.entries > 0,
		disabledReason: c => (c.ready ? null : 'undo is disabled until every precondition holds (see the checklist)'),
		run: c => c.confirm(),
	},
	{
		id: 'undo-next',
		keys: [{input: 'n'}],
		label: 'n',
		description: 'the next applied repair of the audit trail to undo (older; round to the newest)',
		overlay: 'undo',
		footer: 2,
		hint: 'n next',
		active: c => c.stage === 'preview' && c.entries > 1,
		run: c => c.nextEntry(),
	},
	{
		id: 'undo-back',
		keys: [{special: 'escape'}],
		label: 'Esc',
		description: 'leave the undo preview (nothing is written), or close its result',
		overlay: 'undo',
		footer: 3,
		hint: 'Esc back',
		hintIn: c => (c.undone ? 'Esc close' : null),
		active: c => c.stage !== 'undoing',
		run: c => c.close(),
	},
	{
		id: 'undo-down',
		keys: [{input: 'j'}, {special: 'downArrow'}],
		label: 'j/k',
		description: 'scroll the undo preview a line down or up (↑/↓ too)',
		overlay: 'undo',
		footer: 4,
		hint: 'j/k scroll',
		continuesBurst: true,
		run: c => c.scroll(1),
	},
	{
		id: 'undo-up',
		keys: [{input: 'k'}, {special: 'upArrow'}],
		label: 'k/↑',
		description: 'scroll the undo preview a line up',
		overlay: 'undo',
		help: false,
		continuesBurst: true,
		run: c => c.scroll(-1),
	},
	{
		id: 'undo-page-down',
		keys: [{input: 'd', ctrl: true}, {special: 'pageDown'}],
		label: 'C-d/C-u',
		description: 'scroll the undo preview half a page down or up (PgDn/PgUp too)',
		overlay: 'undo',
		continuesBurst: true,
		run: c => c.scroll(c.half),
	},
	{
		id: 'undo-page-up',
		keys: [{input: 'u', ctrl: true}, {special: 'pageUp'}],
		label: 'C-u',
		description: 'scroll the undo preview half a page up',
		overlay: 'undo',
		help: false,
		continuesBurst: true,
		run: c => c.scroll(-c.half),
	},
	{
		id: 'undo-top',
		keys: [{input: 'g'}, {special: 'home'}],
		label: 'g/G',
		description: "the undo preview's first or last line (Home/End too)",
		overlay: 'undo',
		continuesBurst: true,
		run: c => c.scroll('top'),
	},
	{
		id: 'undo-bottom',
		keys: [{input: 'G'}, {special: 'end'}],
		label: 'G',
		description: "the undo preview's last line",
		overlay: 'undo',
		help: false,
		continuesBurst: true,
		run: c => c.scroll('bottom'),
	},
	{
		id: 'undo-confirm-cancel',
		keys: [{special: 'escape'}],
		label: 'Esc',
		description: 'cancel the confirmation (nothing is written)',
		overlay: 'undo-confirm',
		help: false,
		run: c => c.notice('not confirmed: nothing was written'),
	},
	{
		id: 'undo-confirm-submit',
		keys: [{special: 'return'}],
		label: '⏎',
		description: 'confirm with the typed answer',
		overlay: 'undo-confirm',
		help: false,
		run: c => c.answer.submit(),
	},
	{
		id: 'undo-confirm-erase',
		keys: [{special: 'backspace'}, {special: 'delete'}],
		label: '⌫',
		description: 'erase a character of the answer',
		overlay: 'undo-confirm',
		help: false,
		run: c => c.answer.erase(),
	},
	{
		id: 'undo-confirm-type',
		keys: [{typed: true}],
		label: 'text',
		description: 'type the confirmation',
		overlay: 'undo-confirm',
		help: false,
		run: (c, key) => c.answer.type(key.input),
	},
];

/** Keys of the timeline view: scroll, leave. */
const TIMELINE: ReadonlyArray<Binding<TimelineKeys>> = [
	{
		id: 'timeline-back',
		keys: [{special: 'escape'}],
		label: 'Esc',
		description: 'close the timeline: back to the pane it was opened from',
		overlay: 'timeline',
		footer: 1,
		hint: 'Esc back',
		run: c => c.close(),
	},
	{
		id: 'timeline-down',
		keys: [{input: 'j'}, {special: 'downArrow'}],
		label: 'j/k',
		description: 'scroll the timeline a line down or up (↑/↓ too)',
		overlay: 'timeline',
		footer: 2,
		hint: 'j/k scroll',
		continuesBurst: true,
		run: c => c.scroll(1),
	},
	{
		id: 'timeline-up',
		keys: [{input: 'k'}, {special: 'upArrow'}],
		label: 'k/↑',
		description: 'scroll the timeline a line up',
		overlay: 'timeline',
		help: false,
		continuesBurst: true,
		run: c => c.scroll(-1),
	},
	{
		id: 'timeline-page-down',
		keys: [{input: 'd', ctrl: true}, {special: 'pageDown'}, {input: ' '}],
		label: 'C-d/C-u',
		description: 'scroll the timeline half a page down or up (PgDn/PgUp, space too)',
		overlay: 'timeline',
		footer: 3,
		hint: 'C-d/C-u page',
		continuesBurst: true,
		run: c => c.scroll(c.half),
	},
	{
		id: 'timeline-page-up',
		keys: [{input: 'u', ctrl: true}, {special: 'pageUp'}],
		label: 'C-u',
		description: 'scroll the timeline half a page up',
		overlay: 'timeline',
		help: false,
		continuesBurst: true,
		run: c => c.scroll(-c.half),
	},
	{
		id: 'timeline-top',
		keys: [{input: 'g'}, {special: 'home'}],
		label: 'g/G',
		description: "the timeline's first or last line (Home/End too)",
		overlay: 'timeline',
		footer: 4,
		hint: 'g/G ends',
		continuesBurst: true,
		run: c => c.scroll('top'),
	},
	{
		id: 'timeline-bottom',
		keys: [{input: 'G'}, {special: 'end'}],
		label: 'G',
		description: "the timeline's last line",
		overlay: 'timeline',
		help: false,
		continuesBurst: true,
		run: c => c.scroll('bottom'),
	},
	{
		id: 'timeline-quit',
		keys: [{input: 'q'}, {input: 'c', ctrl: true}],
		label: 'q',
		description: 'quit',
		overlay: 'timeline',
		footer: 99,
		hint: 'q quit',
		pinned: true,
		help: false,
		run: c => c.quit(),
	},
];

export const SCREEN_BINDINGS = SCREEN;
export const TIMELINE_BINDINGS = TIMELINE;
export const REPAIR_BINDINGS = REPAIR;
export const UNDO_BINDINGS = UNDO;
/** Every binding, in help order. */
export const BINDINGS: readonly AnyBinding[] = [...SCREEN, ...REPAIR, ...UNDO, ...TIMELINE];
