/**
 * `hfx` with no subcommand: the live TUI on a terminal; a one-shot report (or --json) when stdout
 * or stdin is not a terminal. With no Hermes home anywhere, the built-in demo.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import React from 'react';
import {render} from 'ink';
import {isFailClosed, type ExitCode} from '../errors.js';
import {startupMark, startupMarks} from '../startup.js';
import {LiveStore} from '../store/live.js';
import type {StoreLocation} from '../store/locate.js';
import {App} from '../ui/app.js';
import {installFastOutput} from '../ui/ink-output.js';
import {ENTER_ALT_SCREEN, LEAVE_ALT_SCREEN, SHOW_CURSOR} from '../ui/terminal.js';
import {startFilesProbe} from '../ui/files-probe.js';
import {repairServiceFor} from '../ui/repair-service.js';
import {type GlobalFlags, type Io, locate} from './context.js';
import {runScan} from './scan.js';

export function isInteractive(): boolean {
	return Boolean(process.stdout.isTTY && process.stdin.isTTY);
}

/** True when nothing says where a store is and ~/.hermes does not exist: `npm start` then shows the demo. */
export function shouldDemo(flags: GlobalFlags, io: Io): boolean {
	return !flags.db && !flags.home && !(io.env.HERMES_HOME ?? '').trim() && !fs.existsSync(path.join(os.homedir(), '.hermes'));
}

/** Runs the full-screen app on one store until the operator quits. */
export async function runLiveApp(location: StoreLocation, flags: GlobalFlags, io: Io): Promise<ExitCode> {
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
	let live: LiveStore;
	try {
		live = LiveStore.open(location, {maxGapSeconds: flags.maxGapSeconds});
		startupMark('store read and analysed');
	} catch (error) {
		if (isFailClosed(error)) {
			io.err(error.line());
			return error.exitCode;
		}

		throw error;
	}

	// The Files pane's first probe (it reads the -shm through a child process and walks /proc) and
	// the watcher wait for the first frame: the operator sees the sessions first.
	const files = startFilesProbe(live, {firstPollMs: 400});
	let yanked: string[] = [];
	const restore = () => {
		process.stdout.write(LEAVE_ALT_SCREEN + SHOW_CURSOR);
	};

	process.stdout.write(ENTER_ALT_SCREEN);
	const repair = repairServiceFor({dbPath: live.readOnlyStore.preflight.path, owner: location.owner, maxGapSeconds: flags.maxGapSeconds});
	// HFX_INK_OUTPUT=ink keeps Ink's own frame builder (to rule ours out when a frame looks wrong).
	if (io.env.HFX_INK_OUTPUT !== 'ink') {
		await installFastOutput();
	}

	let renders = 0;
	let renderMs = 0;
	startupMark('render started');
	const instance = render(<App live={live} files={files} repair={repair} color={flags.color} tick onExit={ids => {
		yanked = ids;
	}} />, {exitOnCtrlC: false, patchConsole: true, maxFps: 20, onRender({renderTime}) {
		renders++;
		renderMs += renderTime;
		if (renders === 1) {
			startupMark('first frame');
			if (io.env.HFX_TRACE_STARTUP) {
				fs.appendFileSync(io.env.HFX_TRACE_STARTUP, `${JSON.stringify(startupMarks())}\n`);
			}

			// Follow the store from here on (it catches up on anything committed since the first read).
			setImmediate(() => {
				live.start();
			});
		}
	}});
	// Diagnostics for benchmarks and bug reports: HFX_TRACE_MEMORY=FILE appends memory use and the
	// number of frames rendered every 2 s.
	const trace = io.env.HFX_TRACE_MEMORY;
	const tracer = trace ? setInterval(() => {
		fs.appendFileSync(trace, `${JSON.stringify({at: Date.now(), renders, renderMs: Math.round(renderMs), ...process.memoryUsage()})}\n`);
	}, 2000) : undefined;
	tracer?.unref();
	const onSignal = () => instance.unmount();
	process.once('SIGTERM', onSignal);
	process.once('SIGHUP', onSignal);
	try {
		await instance.waitUntilExit();
	} finally {
		process.off('SIGTERM', onSignal);
		process.off('SIGHUP', onSignal);
		clearInterval(tracer);
		restore();
		files.close();
		live.close();
	}

	for (const id of yanked) {
		io.out(`copied: ${id}`);
	}

	return 0;
}

export async function runTui(flags: GlobalFlags, io: Io): Promise<ExitCode> {
	if (!isInteractive()) {
		return runScan(flags, io);
	}

	if (shouldDemo(flags, io)) {
		const {runDemo} = await import('./demo.js');
		io.err('hfx: no Hermes home here (~/.hermes, $HERMES_HOME); starting the built-in live demo. Point hfx at a store with --db PATH or --home DIR.');
		return runDemo({...flags, speed: 1, keep: false, seconds: undefined}, io);
	}

	let location: StoreLocation;
	try {
		const located = locate(flags, io);
		location = located.stores[0]!;
		if (located.stores.length > 1 && !flags.profile) {
			io.err(`hfx: ${located.stores.length} stores under ${located.root}; showing ${location.label} (choose with --profile NAME)`);
		}
	} catch (error) {
		if (isFailClosed(error)) {
			io.err(error.line());
			return error.exitCode;
		}

		throw error;
	}

	return runLiveApp(location, flags, io);
}
