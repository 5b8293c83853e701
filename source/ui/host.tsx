/**
 * The TUI host: opens one store live, mounts the full-screen app in the alternate screen, follows
 * the store once the first frame is up, and restores the terminal on exit (q, SIGTERM, SIGHUP).
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import React from 'react';
import {render} from 'ink';
import {type ExitCode, refusalExit} from '../errors.js';
import type {GlobalFlags, Io} from '../io.js';
import {openAppend} from '../safe-create.js';
import {startupMark, startupMarks} from '../startup.js';
import {LiveStore} from '../store/live.js';
import type {StoreLocation} from '../store/locate.js';
import {backupsPaneSource, rootOfStore} from './backups-source.js';
import {App} from './app.js';
import type {TuiFlags} from './app-props.js';
import {startFilesProbe} from './files-feed.js';
import {repairServiceFor} from './repair-service.js';
import {ENTER_ALT_SCREEN, LEAVE_ALT_SCREEN, SHOW_CURSOR} from './terminal.js';

/** Opens the store live, or says in one line why not (and with which exit code). */
function openLive(location: StoreLocation, flags: GlobalFlags, io: Io): LiveStore | ExitCode {
	try {
		const live = LiveStore.open(location, {maxGapSeconds: flags.maxGapSeconds});
		startupMark('store read and analysed');
		return live;
	} catch (error) {
		return refusalExit(error, io.err);
	}
}

/** One diagnostics line appended to an operator-named file: never through a link or into a FIFO (safe-create.ts); best effort. */
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

/** Diagnostics for benchmarks and bug reports: HFX_TRACE_MEMORY=FILE appends memory use and frames rendered every 2 s. */
function traceMemory(io: Io, frames: () => {renders: number; renderMs: number}): NodeJS.Timeout | undefined {
	const trace = io.env.HFX_TRACE_MEMORY;
	const tracer = trace ? setInterval(() => {
		const {renders, renderMs} = frames();
		appendTrace(trace, `${JSON.stringify({at: Date.now(), renders, renderMs: Math.round(renderMs), ...process.memoryUsage()})}\n`);
	}, 2000) : undefined;
	tracer?.unref();
	return tracer;
}

type Mounted = {instance: ReturnType<typeof render>; yanked: () => string[]; frames: () => {renders: number; renderMs: number}};

/** Renders the app; after the first frame the store starts following (it catches up on anything committed meanwhile). */
function mount(live: LiveStore, location: StoreLocation, flags: TuiFlags, io: Io, files: ReturnType<typeof startFilesProbe>, backups: ReturnType<typeof backupsPaneSource>): Mounted {
	let yanked: string[] = [];
	let renders = 0;
	let renderMs = 0;
	const repair = repairServiceFor({dbPath: live.storePath, owner: location.owner, maxGapSeconds: flags.maxGapSeconds});
	startupMark('render started');
	const instance = render(<App live={live} files={files} backups={backups} repair={repair} color={flags.color} initialPane={flags.pane} tick onExit={ids => {
		yanked = ids;
	}} />, {exitOnCtrlC: false, patchConsole: true, maxFps: 20, onRender({renderTime}) {
		renders++;
		renderMs += renderTime;
		if (renders === 1) {
			startupMark('first frame');
			if (io.env.HFX_TRACE_STARTUP) {
				appendTrace(io.env.HFX_TRACE_STARTUP, `${JSON.stringify(startupMarks())}\n`);
			}

			setImmediate(() => {
				live.start();
			});
		}
	}});
	return {instance, yanked: () => yanked, frames: () => ({renders, renderMs})};
}

/** Runs the full-screen app on one store until the operator quits. */
export async function runLiveApp(location: StoreLocation, flags: TuiFlags, io: Io): Promise<ExitCode> {
	// Ink rebuilds every cell of the frame on each render (several MB of short-lived objects per frame
	// on a 140×40 screen). With V8's default heap growth (up to 4× per step) that garbage is promoted
	// and a session following a busy agent settles near 400 MB. Growing the heap by 30 % per step
	// keeps it near its live set (peak RSS ~200 MB on the 1M-message bench store) for a few percent
	// more GC time. (--optimize-for-size did as well on memory but nearly doubled CPU and latency.)
	// (Where this is set, before the first read or after the first frame, made no difference we
	// could measure to the start-up time or to the memory of a 10-minute follow.)
	v8.setFlagsFromString('--heap-growing-percent=30');
	// Diagnostics: HFX_TRACE_STARTUP=FILE appends when each start-up step ended (ms since process start).
	startupMark('modules loaded');
	const live = openLive(location, flags, io);
	if (typeof live === 'number') {
		return live;
	}

	// The Files pane's first probe (it reads the -shm through a child process and walks /proc) and
	// the watcher wait for the first frame: the operator sees the sessions first.
	const files = startFilesProbe(live, {firstPollMs: 400});
	// The Backups pane: the store's Hermes root (or --home); verify, drill and snapshot run as child processes.
	const backups = backupsPaneSource({root: flags.home ? path.resolve(flags.home) : rootOfStore(location.path, location.owner), profile: location.owner});
	process.stdout.write(ENTER_ALT_SCREEN);
	const mounted = mount(live, location, flags, io, files, backups);
	const tracer = traceMemory(io, mounted.frames);
	const onSignal = () => mounted.instance.unmount();
	process.once('SIGTERM', onSignal);
	process.once('SIGHUP', onSignal);
	try {
		await mounted.instance.waitUntilExit();
	} finally {
		process.off('SIGTERM', onSignal);
		process.off('SIGHUP', onSignal);
		clearInterval(tracer);
		process.stdout.write(LEAVE_ALT_SCREEN + SHOW_CURSOR);
		files.close();
		backups.close();
		live.close();
	}

	for (const id of mounted.yanked()) {
		io.out(`copied: ${id}`);
	}

	return 0;
}
