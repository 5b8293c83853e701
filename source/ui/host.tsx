/**
 * The TUI host: opens the store live (on a root with profiles, every profile's store), mounts the full-screen app in
 * the alternate screen, follows
 * the store once the first frame is up, and restores the terminal on exit (q, SIGTERM, SIGHUP).
 */
import fs from 'node:fs';
import path from 'node:path';
import {render} from 'ink';
import {type ExitCode, refusalExit} from '../ground/errors.js';
import {ownSignals} from '../ground/interrupts.js';
import type {GlobalFlags, Io} from '../ground/io.js';
import {openAppend} from '../ground/safe-create.js';
import {startupMark, startupMarks} from '../ground/startup.js';
import {LiveStore} from '../live/live.js';
import type {StoreLocation} from '../store/locate.js';
import {backupsPaneSource, rootOfStore} from './sources/backups-source.js';
import {App} from './app.js';
import {leaveOutMaglev, tuneHeapForFollowing} from './heap-flags.js';
import type {TuiFlags} from './app-props.js';
import {startFilesProbe} from './sources/files-feed.js';
import type {FilesSource} from './sources/files-model.js';
import {homeFilesSource} from './sources/home-files.js';
import {HomeStores} from './sources/home-source.js';
import {storeBuildRules} from '../store/places/store-build.js';
import {type RepairService, repairServiceFor} from './repair/repair-service.js';
import {ENTER_ALT_SCREEN, LEAVE_ALT_SCREEN, SHOW_CURSOR} from './terminal.js';
import {FRAME_MS, INK_MAX_FPS} from './screen/frame-gate.js';

/**
 * A profile the panes do not show is read at most once a second (its commits coalesced for 1 s,
 * the fallback poll every 5 s): a busy gateway in another profile then costs one read a second,
 * not one per commit, and its risk still reaches the header and Findings within about a second.
 * (Its file events still arrive at once; only the read waits.)
 */
const BACKGROUND = {debounceMs: 1000, pollMs: 5000};

/**
 * Opens the store live, or says in one line why not (and with which exit code). `preview`: from its newest rows only,
 * the full read and the analysis after the first frame (issue #26; LiveStore.analyseFirst).
 */
function openLive(
	location: StoreLocation,
	flags: GlobalFlags,
	io: Io,
	how: {background?: boolean; preview?: boolean} = {},
): LiveStore | ExitCode {
	try {
		const options = {
			maxGapSeconds: flags.maxGapSeconds,
			// The installed build's rules, as scan and repair judge by them (issue #27).
			buildRules: (ruleSet: Parameters<typeof storeBuildRules>[1]) =>
				storeBuildRules(location.path, ruleSet, {env: io.env}),
			...(how.background ? BACKGROUND : {}),
		};
		const live = how.preview ? LiveStore.openPreview(location, options) : LiveStore.open(location, options);
		startupMark(how.preview ? 'store previewed and opened' : 'store read and analysed');
		return live;
	} catch (error) {
		return refusalExit(error, io.err);
	}
}

/**
 * One diagnostics line appended to an operator-named file: never through a link or into a FIFO (ground/safe-create.ts);
 * best
 * effort.
 */
function appendTrace(file: string, line: string): void {
	try {
		const fd = openAppend(file, what => new Error(what));
		try {
			fs.writeSync(fd, line);
		} finally {
			fs.closeSync(fd);
		}
	} catch {
		// a diagnostic that cannot be written is dropped; the TUI goes on
	}
}

/**
 * Diagnostics for benchmarks and bug reports: HFX_TRACE_MEMORY=FILE appends memory use and frames rendered every 2 s.
 */
function traceMemory(io: Io, frames: () => {renders: number; renderMs: number}): NodeJS.Timeout | undefined {
	const trace = io.env.HFX_TRACE_MEMORY;
	const tracer = trace
		? setInterval(() => {
				const {renders, renderMs} = frames();
				appendTrace(
					trace,
					`${JSON.stringify({at: Date.now(), renders, renderMs: Math.round(renderMs), ...process.memoryUsage()})}\n`,
				);
			}, 2000)
		: undefined;
	tracer?.unref();
	return tracer;
}

type Mounted = {
	instance: ReturnType<typeof render>;
	/** Why the first full read after the first frame was refused (the view was then closed), or null. */
	failure: () => unknown;
	yanked: () => string[];
	frames: () => {renders: number; renderMs: number};
};

/** The stores followed: one, or every profile's (the first focused), with the sources the panes read. */
type Followed = {
	stores: LiveStore[];
	locations: StoreLocation[];
	home?: HomeStores;
	files: FilesSource & {close: () => void};
	notice?: string | null;
};

/** The repair back end of the focused store (on a root with profiles, of the profile focused when r is pressed). */
function repairOf(followed: Followed, flags: TuiFlags): RepairService {
	const services = followed.stores.map((live, i) =>
		repairServiceFor({dbPath: live.storePath, owner: followed.locations[i]!.owner, maxGapSeconds: flags.maxGapSeconds}),
	);
	const current = (): RepairService =>
		services[followed.stores.indexOf((followed.home?.focused as LiveStore) ?? followed.stores[0]!)] ?? services[0]!;
	return services.length === 1
		? services[0]!
		: {
				plan: async (orphanId, donorId) => current().plan(orphanId, donorId),
				checks: () => current().checks(),
				apply: async (planned, log) => current().apply(planned, log),
				undoable: () => current().undoable?.() ?? [],
				undo: async (seq, log) => current().undo!(seq, log),
			};
}

/**
 * After the first frame: a store drawn from a preview is read whole and analysed, then followed (a store read whole
 * at the open is followed at once); one whose read is refused calls `refused` (the view closes and hfx says why as an
 * open would: runLiveApp).
 */
function analyseThenFollow(followed: Followed, io: Io, refused: (error: unknown) => void): void {
	for (const store of followed.stores) {
		store.analyseFirst().then(() => {
			// A second trace line once the first analysis is published (its marks come after the first frame).
			if (io.env.HFX_TRACE_STARTUP && followed.stores.length === 1) {
				appendTrace(io.env.HFX_TRACE_STARTUP, `${JSON.stringify(startupMarks())}\n`);
			}

			// Following from here: V8's Maglev tier left out (ui/heap-flags.ts), the start-up's code already warm.
			leaveOutMaglev();
			store.start();
		}, refused);
	}
}

/**
 * Renders the app; after the first frame the stores start following (they catch up on anything committed meanwhile).
 */
function mount(followed: Followed, flags: TuiFlags, io: Io, backups: ReturnType<typeof backupsPaneSource>): Mounted {
	let yanked: string[] = [];
	let failure: unknown = null;
	let renders = 0;
	let renderMs = 0;
	const repair = repairOf(followed, flags);
	const live = followed.home?.live ?? followed.stores[0]!;
	startupMark('render started');
	const instance = render(
		<App
			live={live}
			home={followed.home?.home}
			files={followed.files}
			backups={backups}
			repair={repair}
			notice={followed.notice}
			color={flags.color}
			initialPane={flags.pane}
			tick
			frameMs={FRAME_MS}
			onExit={ids => {
				yanked = ids;
			}}
		/>,
		{
			exitOnCtrlC: false,
			patchConsole: true,
			// The live sources are paced by the screen's frame gate; Ink's own throttle would hold a keypress back.
			maxFps: INK_MAX_FPS,
			onRender({renderTime}) {
				renders++;
				renderMs += renderTime;
				if (renders === 1) {
					startupMark('first frame');
					if (io.env.HFX_TRACE_STARTUP) {
						appendTrace(io.env.HFX_TRACE_STARTUP, `${JSON.stringify(startupMarks())}\n`);
					}

					analyseThenFollow(followed, io, error => {
						failure ??= error;
						instance.unmount();
					});
				}
			},
		},
	);
	return {instance, failure: () => failure, yanked: () => yanked, frames: () => ({renders, renderMs})};
}

/**
 * Opens every store (the first refuses as a lone store does; another profile's that cannot be read
 * is left out and named on the notice line), and on a root with profiles the home across them.
 */
function follow(
	locations: readonly StoreLocation[],
	flags: TuiFlags,
	io: Io,
	notice: string | null,
): Followed | ExitCode {
	// A lone store is drawn from a preview (issue #26); a root's profiles are read whole, as the home judges them all.
	const first = openLive(locations[0]!, flags, io, {preview: locations.length === 1});
	if (typeof first === 'number') {
		return first;
	}

	const stores = [first];
	const opened = [locations[0]!];
	const left: Array<{name: string; reason: string}> = [];
	for (const location of locations.slice(1)) {
		const live = openLive(
			location,
			flags,
			{...io, err: line => left.push({name: location.owner, reason: line.replace(/^hfx: /, '')})},
			{background: true},
		);
		if (typeof live !== 'number') {
			stores.push(live);
			opened.push(location);
		}
	}

	// The Files pane's first probe (it reads the -shm through a child process and walks /proc) and
	// the watcher wait for the first frame: the operator sees the sessions first.
	if (locations.length === 1) {
		return {stores, locations: opened, files: startFilesProbe(first, {firstPollMs: 400}), notice};
	}

	// A profile that could not be opened stays in the header (counted, "unreadable") and its reason leads the notice
	// line.
	const said = [...left.map(l => `✗ ${l.name} unreadable: ${l.reason}`), notice].filter(Boolean).join(' · ');
	const home = new HomeStores(
		stores.map((store, i) => ({name: opened[i]!.owner, store})),
		said || null,
		left,
	);
	return {
		stores,
		locations: opened,
		home,
		files: homeFilesSource(home.home, new Map(stores.map((store, i) => [opened[i]!.owner, store])), {firstPollMs: 400}),
	};
}

/** Runs the full-screen app on one store (or every profile's of a root) until the operator quits. */
export async function runLiveApp(
	where: StoreLocation | readonly StoreLocation[],
	flags: TuiFlags,
	io: Io,
	notice: string | null = null,
): Promise<ExitCode> {
	tuneHeapForFollowing();
	// Diagnostics: HFX_TRACE_STARTUP=FILE appends when each start-up step ended (ms since process start).
	startupMark('modules loaded');
	const locations = Array.isArray(where) ? (where as readonly StoreLocation[]) : [where as StoreLocation];
	const followed = follow(locations, flags, io, notice);
	if (typeof followed === 'number') {
		return followed;
	}

	const location = locations[0]!;
	// The Backups pane: the store's Hermes root (or --home); verify, drill and snapshot run as child processes.
	// On a root with profiles, every profile's snapshots, and S snapshots the focused one; --profile keeps its own (as
	// hfx backups --profile).
	const root = flags.home ? path.resolve(flags.home) : rootOfStore(location.path, location.owner);
	const home = followed.home?.home;
	const backups = backupsPaneSource({
		root,
		profile: location.owner,
		focused: home ? () => home.model.focused : undefined,
		only: flags.profile ?? null,
	});
	process.stdout.write(ENTER_ALT_SCREEN);
	const mounted = mount(followed, flags, io, backups);
	const tracer = traceMemory(io, mounted.frames);
	// SIGTERM, SIGHUP and a SIGINT sent by kill (Ctrl-C itself is a key in raw mode) close the view, through the
	// one signal policy (ground/interrupts.ts): a repair or undo the view is writing finishes and is recorded first.
	const release = ownSignals(() => mounted.instance.unmount());
	try {
		await mounted.instance.waitUntilExit();
	} finally {
		release();
		clearInterval(tracer);
		process.stdout.write(LEAVE_ALT_SCREEN + SHOW_CURSOR);
		followed.files.close();
		backups.close();
		followed.home?.close();
		for (const store of followed.stores) {
			store.close();
		}
	}

	if (mounted.failure() !== null) {
		return refusalExit(mounted.failure(), io.err);
	}

	for (const id of mounted.yanked()) {
		io.out(`copied: ${id}`);
	}

	return 0;
}
