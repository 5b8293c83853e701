/**
 * What the screen shows this render: the model (held still while paused), the changes waiting,
 * the body's height and the focused pane's context (with a per-revision cache of session details).
 */
import {useEffect, useMemo, useRef} from 'react';
import type {LiveModel} from '../../live/live.js';
import type {SessionDetail} from '../../store/read/detail.js';
import type {AppProps} from '../app-props.js';
import type {BackupsModel} from '../sources/backups-model.js';
import type {FilesModel} from '../sources/files-model.js';
import {type SourceSteps, useClock, useFrameGate, useSource} from '../hooks.js';
import {PANE_SPECS} from '../panes/index.js';
import type {PaneContext, PaneSpec} from '../panes/types.js';
import type {UiState} from '../state.js';
import type {Size} from '../terminal.js';
import {bannerRows} from '../components/banner.js';
import type {HomeView} from '../sources/home-model.js';
import {keepRows, rowsAhead} from '../views.js';

export type ScreenModel = {
	/** The newest model (the header shows it even while paused). */
	latest: LiveModel;
	/** The model the panes show. */
	model: LiveModel;
	waiting: number;
	bodyHeight: number;
	ctx: PaneContext;
	spec: PaneSpec;
	backups: BackupsModel | null;
	/** The identity of the row under the focused keyed list's cursor (null elsewhere, or when empty). */
	selectedKey: string | null;
	/** On a root with profiles, every profile's newest model and the focused one; else null. */
	home: HomeView | null;
};

/**
 * Every model published keeps the lists made so far, drawn or not (views.ts keepRows); one whose analysis was made
 * whole has its sessions lists made before its frame, in a task of their own (views.ts rowsAhead).
 */
const MODEL_STEPS: SourceSteps<LiveModel> = {
	each: model => keepRows(model.analysis),
	ahead: model => rowsAhead(model.analysis),
};

/** The model on screen: while paused, the one of the moment of the pause (unless the source holds itself still). */
function useShownModel(latest: LiveModel, paused: boolean): LiveModel {
	const frozen = useRef<LiveModel | null>(null);
	if (paused && frozen.current === null) {
		frozen.current = latest;
	} else if (!paused) {
		frozen.current = null;
	}

	return latest.paused ? latest : (frozen.current ?? latest);
}

/**
 * One session's detail, read once per store and revision (null when it cannot be read): another profile focused is
 * another store, whatever its revision.
 */
function useDetail(props: AppProps, revision: number, store: string): (id: string) => SessionDetail | null {
	// biome-ignore lint/correctness/useExhaustiveDependencies: a new cache per store and revision is the point
	const cache = useMemo(() => new Map<string, SessionDetail | null>(), [revision, store]);
	return (id: string): SessionDetail | null => {
		if (!cache.has(id)) {
			try {
				cache.set(id, props.live.detail(id));
			} catch {
				cache.set(id, null);
			}
		}

		return cache.get(id)!;
	};
}

export function useScreenModel(props: AppProps, ui: UiState, size: Size): ScreenModel {
	// The live sources draw at most one frame per props.frameMs between them (keys are drawn at once).
	const gate = useFrameGate(props.frameMs ?? 0);
	const latest = useSource(props.live, gate, MODEL_STEPS) ?? props.live.model;
	const files = useSource<FilesModel>(props.files, gate);
	const backups = useSource<BackupsModel>(props.backups, gate);
	const home = useSource<HomeView>(props.home, gate);
	const model = useShownModel(latest, ui.paused);
	const clock = useClock(props.tick, props.now);
	useEffect(() => {
		props.files?.setVisible?.(ui.pane === 'files');
	}, [ui.pane, props.files]);
	const waiting = latest.paused ? latest.waiting : latest.commits - model.commits;
	const now = props.tick ? clock : (props.now ?? (() => Date.now() / 1000))();
	const detail = useDetail(props, model.revision, model.facts.path);
	// Header, tabs, banner, footer, and one spare row: Ink 6 clears the screen on every frame as tall as the terminal.
	const bodyHeight = Math.max(3, size.rows - 4 - bannerRows(model, home));
	const base: Omit<PaneContext, 'focusSession'> = {
		model,
		ui,
		width: size.columns,
		height: bodyHeight,
		now,
		detail,
		files,
		backups,
		home,
	};
	const focusSession = ui.selectedSession ?? PANE_SPECS.sessions.selectedId({...base, focusSession: null});
	const ctx: PaneContext = {...base, focusSession};
	const spec = PANE_SPECS[ui.pane];
	return {latest, model, waiting, bodyHeight, ctx, spec, backups, selectedKey: selectedKey(spec, ctx), home};
}

function selectedKey(spec: PaneSpec, ctx: PaneContext): string | null {
	const ids = spec.rowIds?.(ctx);
	return ids && spec.cursor ? (ids.at(spec.cursor(ctx)) ?? null) : null;
}
