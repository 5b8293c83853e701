/**
 * What the TUI is given: the live store, the optional Files, Backups and repair back ends, and
 * the knobs tests turn (colour, clock, first pane, exit report).
 */
import type {BackupsSource} from './sources/backups-model.js';
import type {FilesSource} from './sources/files-model.js';
import type {LiveSource} from './sources/live-source.js';
import type {HomeSource} from './sources/home-source.js';
import type {Pane} from './pane-names.js';
import type {GlobalFlags} from '../ground/io.js';
import type {RepairService} from './repair/repair-service.js';

/** The command line's flags for the TUI: the store's, and the pane to open on (--pane). */
export type TuiFlags = GlobalFlags & {pane?: Pane};

export type AppProps = {
	/** The store the panes show (on a root with profiles, the focused profile's). */
	live: LiveSource;
	/** On a root with profiles: every profile's store (header, banner and Findings span them; P moves the focus). */
	home?: HomeSource;
	files?: FilesSource;
	backups?: BackupsSource;
	color?: boolean;
	/** Wall clock in seconds; tests pass a constant. */
	now?: () => number;
	/** Re-render every second so relative times move (off in tests). */
	tick?: boolean;
	/**
	 * At most one frame per this many ms from the live sources (the host: screen/frame-gate.ts FRAME_MS); 0 by default,
	 * so tests see every publish drawn at once.
	 */
	frameMs?: number;
	initialPane?: Pane;
	/** How long "copied …" stays in the footer, in ms (tests shorten it). */
	noticeMs?: number;
	/** Called with the ids copied with y when the app exits. */
	onExit?: (yanked: string[]) => void;
	/** A start-up notice (the demo started for want of a home...), on the notice line from the first frame. */
	notice?: string | null;
	/** The repair flow's back end; without it, r points to the command line. */
	repair?: RepairService;
};
