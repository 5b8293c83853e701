/**
 * The live screen's layout: header, pane tabs, banner, then the focused pane (or the help, or
 * the repair flow drawn over it), and the footer (or the filter line).
 */
import type React from 'react';
import {useReducer} from 'react';
import {Box, useApp} from 'ink';
import type {AppProps} from '../app-props.js';
import {Banner} from '../components/banner.js';
import {FilterBar} from '../components/filter-bar.js';
import {type SearchedStore, searchContent} from '../search/content-search.js';
import {Footer} from '../components/footer.js';
import {Header} from '../components/header.js';
import {useFadingNotice, usePin} from '../hooks.js';
import {HelpOverlay} from '../components/help-overlay.js';
import {Tabs} from '../components/tabs.js';
import {TooSmall} from '../components/too-small.js';
import type {Pane} from '../pane-names.js';
import {RepairFlow} from '../repair/repair-flow.js';
import {UndoFlow} from '../repair/undo-flow.js';
import {auditPathFor} from '../../store/audit-trail.js';
import {TimelineView} from '../timeline/timeline-view.js';
import {type UiAction, type UiState, initialUiState, uiReducer} from '../state.js';
import {MIN_COLUMNS, MIN_ROWS, useTerminalSize} from '../terminal.js';
import {useScreenKeys} from './use-screen-keys.js';
import {type ScreenModel, useScreenModel} from './use-screen-model.js';

/** How long a confirmation such as "copied …" stays in the footer. */
export const NOTICE_MS = 2500;

type Parts = {props: AppProps; ui: UiState; dispatch: React.Dispatch<UiAction>; shown: ScreenModel; width: number};

/**
 * hfx's own reads of the store stop for a write (each profile's too): a read opens its connection
 * and closes it after, so with none started nothing of hfx holds the store. The function returned
 * resumes them as the operator left them (paused stays paused).
 */
function holdReads(props: AppProps, paused: boolean): () => void {
	props.live.setPaused?.(true);
	return () => props.live.setPaused?.(paused);
}

/** The body: the undo flow, the repair flow or a timeline while one is open, else the help or the focused pane. */
function Body({props, ui, dispatch, shown, width}: Parts): React.ReactElement {
	const {exit} = useApp();
	if (ui.timelineChat) {
		return (
			<TimelineView
				chat={ui.timelineChat}
				live={props.live}
				model={shown.model}
				now={shown.ctx.now}
				width={width}
				height={shown.bodyHeight + 1}
				onClose={() => dispatch({type: 'timeline', chat: null})}
				onQuit={() => {
					props.onExit?.(ui.yanked);
					exit();
				}}
			/>
		);
	}

	if (ui.undo && props.repair) {
		return (
			<UndoFlow
				key={String(ui.undo.seq)}
				seq={ui.undo.seq}
				service={props.repair}
				auditPath={auditPathFor(shown.model.facts.path)}
				width={width}
				height={shown.bodyHeight + 1}
				holdReads={() => holdReads(props, ui.paused)}
				onUndone={() => props.live.refresh(true)}
				onClose={() => {
					dispatch({type: 'undo', undo: null});
					props.live.refresh(true);
				}}
			/>
		);
	}

	if (ui.repairOrphan && props.repair) {
		return (
			<RepairFlow
				key={`${ui.repairOrphan}\u0000${ui.repairDonors.join(',')}`}
				orphanId={ui.repairOrphan}
				donors={ui.repairDonors}
				service={props.repair}
				revision={shown.latest.revision}
				width={width}
				height={shown.bodyHeight + 1}
				onApplied={() => props.live.refresh(true)}
				onUndo={seq => dispatch({type: 'undo', undo: {seq}})}
				onClose={applied => {
					dispatch({type: 'repair', orphanId: null});
					if (applied) {
						props.live.refresh(true);
					}
				}}
			/>
		);
	}

	const View = shown.spec.View;
	return ui.overlay === 'help' ? (
		<HelpOverlay query={ui.helpText} scroll={ui.helpScroll} width={width} height={shown.bodyHeight} />
	) : (
		<View ctx={shown.ctx} />
	);
}

/**
 * The stores a content search reads: on a root with profiles every profile's, the focused one's first (its hits lead);
 * else the one followed.
 */
function searchedStores(shown: ScreenModel): SearchedStore[] {
	if (!shown.home) {
		return [{profile: null, path: shown.model.facts.path}];
	}

	const {profiles, focused} = shown.home;
	return [...profiles.filter(p => p.name === focused), ...profiles.filter(p => p.name !== focused)].map(p => ({
		profile: p.name,
		path: p.model.facts.path,
	}));
}

/**
 * ⏎ in the filter line: keeps the fuzzy filter, or runs the content search (its hits become the Sessions pane's rows).
 */
function submitFilter({ui, dispatch, shown}: Pick<Parts, 'ui' | 'dispatch' | 'shown'>, text: string): void {
	if (ui.filterMode === 'content' && text.trim() !== '') {
		dispatch({type: 'content-result', result: searchContent(searchedStores(shown), text)});
		return;
	}

	dispatch({type: 'overlay', overlay: 'none'});
}

/** The last line: nothing under the repair flow or a timeline (they draw their own), the filter line, or the footer. */
function Bottom({props, ui, dispatch, shown, width}: Parts): React.ReactElement | null {
	if (((ui.repairOrphan || ui.undo) && props.repair) || ui.timelineChat) {
		return null;
	}

	return ui.overlay === 'filter' ? (
		<FilterBar
			key={ui.filterMode}
			text={ui.filterText}
			matches={shown.spec.rowCount(shown.ctx)}
			mode={ui.filterMode}
			width={width}
			onChange={text => ui.filterMode === 'fuzzy' && dispatch({type: 'filter-text', text})}
			onSubmit={text => submitFilter({ui, dispatch, shown}, text)}
		/>
	) : (
		<Footer pane={ui.pane} notice={ui.notice} width={width} paused={ui.paused} />
	);
}

export function Screen(props: AppProps): React.ReactElement {
	const size = useTerminalSize();
	// On a root with profiles, which stores are followed is said on the notice line from the first frame (stderr is
	// behind the full screen).
	const [ui, dispatch] = useReducer(uiReducer, props, p => ({
		...initialUiState(p.initialPane),
		notice: p.home?.notice ?? p.notice ?? null,
	}));
	const shown = useScreenModel(props, ui, size);
	useScreenKeys(props, ui, dispatch, shown);
	usePin(dispatch, ui.pane, ui.anchor[ui.pane], shown.selectedKey, ui.cursor[ui.pane]);
	useFadingNotice(dispatch, ui.notice, ui.noticeFades, props.noticeMs ?? NOTICE_MS);
	if (size.columns < MIN_COLUMNS || size.rows < MIN_ROWS) {
		return <TooSmall columns={size.columns} rows={size.rows} />;
	}

	const findings = shown.home
		? shown.home.profiles.flatMap(p => p.model.analysis.findings)
		: shown.model.analysis.findings;
	const counts: Partial<Record<Pane, number>> = {findings: findings.filter(f => f.severity !== 'info').length};
	const parts: Parts = {props, ui, dispatch, shown, width: size.columns};
	return (
		// Clipped: no frame is ever taller than the terminal (a taller one scrolls it, and the rows Ink does not redraw
		// keep stale text).
		<Box flexDirection="column" width={size.columns} height={size.rows - 1} overflow="hidden">
			<Header model={shown.latest} paused={ui.paused} waiting={shown.waiting} width={size.columns} home={shown.home} />
			<Tabs pane={ui.pane} counts={counts} width={size.columns} />
			<Banner model={shown.model} width={size.columns} home={shown.home} />
			{/* The repair flow and the timeline draw their own footer on the footer's line. */}
			<Box
				height={shown.bodyHeight + (((ui.repairOrphan || ui.undo) && props.repair) || ui.timelineChat ? 1 : 0)}
				flexDirection="column"
				overflow="hidden"
				flexShrink={0}
			>
				<Body {...parts} />
			</Box>
			<Bottom {...parts} />
		</Box>
	);
}
