/**
 * The live TUI: header (read-only, live or paused), pane tabs, a loud banner while any chat is
 * at rollback risk, the focused pane, and a footer of key hints from the keymap.
 */
import React, {useEffect, useMemo, useReducer, useRef} from 'react';
import {Box, Text, useApp, useStdin, useStdout} from 'ink';
import {TextInput} from '@inkjs/ui';
import type {LiveModel} from '../store/live.js';
import type {SessionDetail} from '../store/detail.js';
import {bytes, plural} from '../text/format.js';
import {type Action, PANES, PANE_TITLES, type Pane, footerHints, helpRows, resolveAction} from './keymap.js';
import {FOLLOW, type UiState, initialUiState, uiReducer} from './state.js';
import {PANE_SPECS} from './panes/index.js';
import type {PaneContext} from './panes/types.js';
import {MIN_COLUMNS, MIN_ROWS, osc52, useTerminalSize} from './terminal.js';
import {COLOR_THEME, MONO_THEME, ThemeContext, useTheme} from './theme.js';
import {sourcesOf} from './views.js';
import type {FilesModel, FilesSource} from './files-model.js';
import type {BackupsModel, BackupsSource} from './backups-model.js';
import {RepairFlow} from './repair-flow.js';
import {useClock, useLatestInput, useSource} from './hooks.js';
import type {RepairService} from './repair-service.js';

export type LiveSource = {
	readonly model: LiveModel;
	subscribe: (listener: (model: LiveModel) => void) => () => void;
	detail: (sessionId: string) => SessionDetail;
	refresh: (force?: boolean) => boolean;
	/** A source that can pause itself stops re-reading while paused (and counts what waits). */
	setPaused?: (paused: boolean) => void;
};

export type AppProps = {
	live: LiveSource;
	files?: FilesSource;
	backups?: BackupsSource;
	color?: boolean;
	/** Wall clock in seconds; tests pass a constant. */
	now?: () => number;
	/** Re-render every second so relative times move (off in tests). */
	tick?: boolean;
	initialPane?: Pane;
	/** Called with the ids copied with y when the app exits. */
	onExit?: (yanked: string[]) => void;
	/** The repair flow's back end; without it, r points to the command line. */
	repair?: RepairService;
};

function Header({model, ui, waiting, width}: {model: LiveModel; ui: UiState; waiting: number; width: number}): React.ReactElement {
	const theme = useTheme();
	const f = model.facts;
	const state = ui.paused ? `PAUSED (${plural(waiting, 'change')} waiting)` : '● LIVE';
	const wal = f.journalMode === 'wal' ? (f.sizes.wal === null ? 'WAL (no -wal)' : `WAL ${bytes(f.sizes.wal)}`) : 'rollback journal';
	const text = ` hfx · READ-ONLY · ${f.label === f.path ? '' : `${f.label} · `}${f.path} · profile ${f.owner} · schema ${f.schemaVersion === null ? '?' : `v${f.schemaVersion}`} · ${f.ruleSet} · ${wal} · dv ${f.dataVersion} `;
	const room = Math.max(0, width - state.length - 2);
	return (
		<Box width={width}>
			<Text bold wrap="truncate">{text.length > room ? `${text.slice(0, Math.max(0, room - 1))}…` : text.padEnd(room)}</Text>
			<Text bold color={ui.paused ? theme.warn : theme.ok}>{` ${state}`}</Text>
		</Box>
	);
}

/** One line, never wrapped: "[1 Sessions]  2 Detail  …", compact below 100 columns. */
function Tabs({pane, counts, width}: {pane: Pane; counts: Partial<Record<Pane, number>>; width: number}): React.ReactElement {
	const theme = useTheme();
	const wide = width >= 100;
	return (
		<Text wrap="truncate">
			{PANES.map((p, i) => {
				const label = `${i + 1}${wide ? ' ' : ''}${PANE_TITLES[p]}${counts[p] ? `(${counts[p]})` : ''}`;
				const sep = i === 0 ? '' : (wide ? ' ' : '');
				return p === pane
					? <Text key={p}>{sep}<Text bold color={theme.accent} inverse={theme.color}>{`[${label}]`}</Text></Text>
					: <Text key={p} color={theme.muted}>{`${sep} ${label}${wide ? ' ' : ''}`}</Text>;
			})}
		</Text>
	);
}

function Banner({model, width}: {model: LiveModel; width: number}): React.ReactElement | null {
	const theme = useTheme();
	const risky = model.analysis.routing.filter(r => r.rollbackRisk);
	if (model.error) {
		return <Text wrap="truncate" color={theme.warn} bold>{` ! ${model.error}`.slice(0, width)}</Text>;
	}

	if (risky.length === 0) {
		return null;
	}

	const first = risky[0]!;
	return (
		<Text wrap="truncate" color={theme.danger} bold inverse={theme.color}>
			{` ✗ ROLLBACK RISK ${plural(risky.length, 'chat')}: ${first.sessionKey} would resume ${first.restartResolvesTo}, newest message is in ${first.newestActivityIn} · 4 Routing `.slice(0, width)}
		</Text>
	);
}

function Footer({pane, ui, width}: {pane: Pane; ui: UiState; width: number}): React.ReactElement {
	const theme = useTheme();
	if (ui.notice) {
		return <Text wrap="truncate" color={theme.accent}>{` ${ui.notice}`}</Text>;
	}

	// "? help" and "q quit" always fit: pane keys fill what is left, in priority order.
	const all = footerHints(pane);
	const pinned: string[] = all.filter(h => h === '? help' || h === 'q quit');
	const right = pinned.join('  ');
	let left = '';
	for (const h of all.filter(h => !pinned.includes(h))) {
		if (left.length + h.length + 2 + right.length + 2 > width - 1) {
			break;
		}

		left += `${left ? '  ' : ' '}${h}`;
	}

	return <Text wrap="truncate" color={theme.muted}>{`${left}  ${right}`}</Text>;
}

function HelpOverlay({query, width, height}: {query: string; width: number; height: number}): React.ReactElement {
	const theme = useTheme();
	const rows = helpRows(query);
	return (
		<Box flexDirection="column" height={height} width={width}>
			<Text bold>{` Keys — type to filter: ${query}▏  (Esc closes)`}</Text>
			{rows.slice(0, Math.max(0, rows.length > height - 1 ? height - 2 : height - 1)).map(r => (
				<Text key={`${r.label}-${r.description}`} wrap="truncate">{` ${r.label.padEnd(7)} ${r.description}`}<Text color={theme.muted}>{`  [${r.where}]`}</Text></Text>
			))}
			{rows.length > height - 1 ? <Text color={theme.muted}>{` … ${rows.length - (height - 2)} more: type to filter`}</Text> : null}
			{rows.length === 0 ? <Text color={theme.muted}>{` no key matches "${query}"`}</Text> : null}
		</Box>
	);
}

function TooSmall({columns, rows}: {columns: number; rows: number}): React.ReactElement {
	return (
		<Box flexDirection="column">
			<Text bold>hfx: terminal too small</Text>
			<Text>{`${columns}x${rows}, need at least ${MIN_COLUMNS}x${MIN_ROWS}.`}</Text>
			<Text>Enlarge the window, or use: hfx scan</Text>
		</Box>
	);
}

export function App(props: AppProps): React.ReactElement {
	const theme = props.color === false ? MONO_THEME : COLOR_THEME;
	return (
		<ThemeContext.Provider value={theme}>
			<Screen {...props} />
		</ThemeContext.Provider>
	);
}

function Screen(props: AppProps): React.ReactElement {
	const {exit} = useApp();
	const {isRawModeSupported} = useStdin();
	const {stdout} = useStdout();
	const size = useTerminalSize();
	const latest = useSource(props.live) ?? props.live.model;
	const files = useSource<FilesModel>(props.files);
	const backups = useSource<BackupsModel>(props.backups);
	const [ui, dispatch] = useReducer(uiReducer, props.initialPane, initialUiState);
	const frozen = useRef<LiveModel | null>(null);
	const clock = useClock(props.tick, props.now);
	if (ui.paused && frozen.current === null) {
		frozen.current = latest;
	} else if (!ui.paused) {
		frozen.current = null;
	}

	// A source that pauses itself keeps its model still; otherwise the view keeps the frozen one.
	const model = latest.paused ? latest : (frozen.current ?? latest);
	useEffect(() => {
		props.files?.setVisible?.(ui.pane === 'files');
	}, [ui.pane, props.files]);
	const waiting = latest.paused ? latest.waiting : latest.commits - model.commits;
	const now = props.tick ? clock : (props.now ?? (() => Date.now() / 1000))();
	const detailCache = useMemo(() => new Map<string, SessionDetail | null>(), [model.revision]);
	const detail = (id: string): SessionDetail | null => {
		if (!detailCache.has(id)) {
			try {
				detailCache.set(id, props.live.detail(id));
			} catch {
				detailCache.set(id, null);
			}
		}

		return detailCache.get(id)!;
	};

	const bannerRows = model.error || model.analysis.routing.some(r => r.rollbackRisk) ? 1 : 0;
	// Header, tabs, banner, footer, and one spare row: Ink 6 clears the screen on every frame as tall as the terminal.
	const bodyHeight = Math.max(3, size.rows - 4 - bannerRows);
	const base: Omit<PaneContext, 'focusSession'> = {model, ui, width: size.columns, height: bodyHeight, now, detail, files, backups};
	const focusSession = ui.selectedSession ?? PANE_SPECS.sessions.selectedId({...base, focusSession: null});
	const ctx: PaneContext = {...base, focusSession};
	const spec = PANE_SPECS[ui.pane];

	const run = (action: Action): void => {
		const rows = spec.rowCount(ctx);
		// Relative moves come from the reducer's current state (fast key sequences never see a stale
		// cursor); only a FOLLOW cursor is resolved here first.
		const from = ui.cursor[ui.pane] === FOLLOW ? spec.cursor?.(ctx) : undefined;
		const half = Math.max(1, Math.floor(bodyHeight / 2));
		switch (action) {
			case 'quit': {
				props.onExit?.(ui.yanked);
				exit();
				return;
			}

			case 'help': {
				dispatch({type: 'overlay', overlay: 'help'});
				return;
			}

			case 'back': {
				dispatch({type: 'back'});
				return;
			}

			case 'filter': {
				dispatch({type: 'overlay', overlay: 'filter'});
				return;
			}

			case 'next-pane':
			case 'prev-pane': {
				dispatch({type: 'cycle-pane', delta: action === 'next-pane' ? 1 : -1});
				return;
			}

			case 'down':
			case 'up': {
				dispatch({type: 'move', delta: action === 'down' ? 1 : -1, rows, from});
				return;
			}

			case 'page-down':
			case 'page-up': {
				dispatch({type: 'move', delta: action === 'page-down' ? half : -half, rows, from});
				return;
			}

			case 'top':
			case 'bottom': {
				dispatch({type: 'move-to', index: action === 'top' ? 0 : rows - 1, rows});
				return;
			}

			case 'open': {
				const id = spec.selectedId(ctx);
				if (id) {
					dispatch({type: 'open-session', id});
				}

				return;
			}

			case 'pause': {
				props.live.setPaused?.(!ui.paused);
				dispatch({type: 'toggle-pause'});
				return;
			}

			case 'yank': {
				const text = spec.yankText?.(ctx) ?? spec.selectedId(ctx);
				if (text) {
					stdout.write(osc52(text));
					dispatch({type: 'yank', id: text});
				}

				return;
			}

			case 'toggle-hidden': {
				dispatch({type: 'toggle-hidden'});
				return;
			}

			case 'cycle-source': {
				dispatch({type: 'cycle-source', sources: sourcesOf(model.analysis)});
				return;
			}

			case 'refresh': {
				props.live.refresh(true);
				dispatch({type: 'notice', text: 're-read'});
				return;
			}

			case 'repair': {
				const id = spec.selectedId(ctx);
				const orphan = model.analysis.orphans.find(o => o.orphanId === id);
				if (!orphan) {
					dispatch({type: 'notice', text: 'select an orphan finding to repair'});
				} else if (orphan.verdict !== 'adoptable') {
					dispatch({type: 'notice', text: `repair-routing refuses ${orphan.orphanId}: ${orphan.reason}`});
				} else if (props.repair) {
					dispatch({type: 'repair', orphanId: orphan.orphanId});
				} else {
					dispatch({type: 'notice', text: `preview the repair with: hfx repair --db ${model.facts.path}`});
				}

				return;
			}

			case 'backup-verify':
			case 'backup-drill': {
				const entry = backups?.entries[ui.cursor.backups];
				if (entry && props.backups) {
					(action === 'backup-verify' ? props.backups.verify : props.backups.drill)(entry.path);
				}

				return;
			}

			case 'backup-snapshot': {
				props.backups?.snapshot();
				return;
			}

			default: {
				const m = /^pane-(\d+)$/.exec(action);
				const target = m ? PANES[Number(m[1]) - 1] : undefined;
				if (target) {
					dispatch({type: 'pane', pane: target});
				}
			}
		}
	};

	useLatestInput((input, key) => {
		if (ui.repairOrphan) {
			// The repair flow takes its own keys.
			return;
		}

		if (ui.notice) {
			dispatch({type: 'notice', text: null});
		}

		if (ui.overlay === 'filter') {
			if (key.escape) {
				dispatch({type: 'back'});
			}

			return;
		}

		if (ui.overlay === 'help') {
			if (key.escape) {
				dispatch({type: 'back'});
			} else if (key.backspace || key.delete) {
				dispatch({type: 'help-text', text: ui.helpText.slice(0, -1)});
			} else if (key.ctrl && input === 'c') {
				run('quit');
			} else if (input && !key.ctrl && !key.meta && input !== '?') {
				dispatch({type: 'help-text', text: ui.helpText + input});
			} else if (input === '?') {
				dispatch({type: 'back'});
			}

			return;
		}

		// Keys typed faster than a read arrive together (Ink hands them over as one "paste"): one keypress each.
		const keys = input.length > 1 && !key.ctrl && !key.meta ? [...input].map(ch => ({input: ch})) : [{input, ...key}];
		for (const k of keys) {
			const action = resolveAction(k, ui.pane);
			if (action) {
				run(action);
			}
		}
	}, {isActive: isRawModeSupported});

	if (size.columns < MIN_COLUMNS || size.rows < MIN_ROWS) {
		return <TooSmall columns={size.columns} rows={size.rows} />;
	}

	const counts: Partial<Record<Pane, number>> = {findings: model.analysis.findings.filter(f => f.severity !== 'info').length};
	const View = spec.View;
	return (
		<Box flexDirection="column" width={size.columns} height={size.rows - 1}>
			<Header model={latest} ui={ui} waiting={waiting} width={size.columns} />
			<Tabs pane={ui.pane} counts={counts} width={size.columns} />
			<Banner model={model} width={size.columns} />
			<Box height={bodyHeight} flexDirection="column">
				{ui.repairOrphan && props.repair
					? <RepairFlow orphanId={ui.repairOrphan} service={props.repair} revision={latest.revision} width={size.columns} height={bodyHeight + 1} onClose={applied => {
						dispatch({type: 'repair', orphanId: null});
						if (applied) {
							props.live.refresh(true);
						}
					}} />
					: (ui.overlay === 'help' ? <HelpOverlay query={ui.helpText} width={size.columns} height={bodyHeight} /> : <View ctx={ctx} />)}
			</Box>
			{ui.repairOrphan && props.repair ? null : ui.overlay === 'filter'
				? (
					<Box>
						<Text>{' / '}</Text>
						<TextInput
							defaultValue={ui.filterText}
							placeholder="filter: id, title, session key, chat, display name"
							onChange={text => dispatch({type: 'filter-text', text})}
							onSubmit={() => dispatch({type: 'overlay', overlay: 'none'})}
						/>
						<Text>{`  ${spec.rowCount(ctx)} match · ⏎ keep · Esc clear`}</Text>
					</Box>
				)
				: <Footer pane={ui.pane} ui={ui} width={size.columns} />}
		</Box>
	);
}
