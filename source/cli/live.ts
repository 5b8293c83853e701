/**
 * `hfx` with no subcommand, and `hfx demo`: the live TUI on a terminal; a one-shot report (or
 * --json) when stdout or stdin is not a terminal. With no Hermes home anywhere, the built-in demo.
 * The command line's floor: it alone puts a command (the demo gateway, the scan) and the TUI host
 * together.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {type DemoFlags, withDemo} from '../commands/demo.js';
import {locate} from '../commands/context.js';
import {runScan} from '../commands/analysis/scan.js';
import {type ExitCode, refusalExit} from '../ground/errors.js';
import type {GlobalFlags, Io} from '../ground/io.js';
import type {StoreLocation} from '../store/locate.js';
import type {TuiFlags} from '../ui/app-props.js';
import {PANES, type Pane} from '../ui/pane-names.js';
import {UsageError} from './args.js';
import type {FlagValue} from './flags.js';

/**
 * --pane NAME (read here, not in the command table: the table loads nothing of the TUI): one of the TUI's panes (any
 * case), or a usage error naming them.
 */
export function paneFlag(value: FlagValue): Pane | undefined {
	if (value === undefined) {
		return undefined;
	}

	const name = typeof value === 'string' ? value.trim().toLowerCase() : '';
	const pane = PANES.find(p => p === name);
	if (!pane) {
		throw new UsageError(`--pane takes one of ${PANES.join(', ')}, not ${JSON.stringify(value)}`);
	}

	return pane;
}

export function isInteractive(): boolean {
	return Boolean(process.stdout.isTTY && process.stdin.isTTY);
}

/** The TUI host (Ink, React) is loaded only when a terminal will show it. */
async function runLiveApp(
	where: StoreLocation | StoreLocation[],
	flags: TuiFlags,
	io: Io,
	notice: string | null = null,
): Promise<ExitCode> {
	const host = await import('../ui/host.js');
	return host.runLiveApp(where, flags, io, notice);
}

/** True when nothing says where a store is and ~/.hermes does not exist: `npm start` then shows the demo. */
export function shouldDemo(flags: GlobalFlags, io: Io): boolean {
	return (
		!flags.db && !flags.home && !(io.env.HERMES_HOME ?? '').trim() && !fs.existsSync(path.join(os.homedir(), '.hermes'))
	);
}

/* The demo's report is the scan's: put together here, on the command line's floor (commands never
 * import each other). */
/**
 * Headless: let the simulation run (through the incident and the restart by default), then report as `hfx scan` does.
 */
async function runDemoReport(flags: DemoFlags, io: Io): Promise<ExitCode> {
	return withDemo(flags, io, async demo => {
		const seconds = flags.seconds ?? 120 / flags.speed;
		await new Promise(resolve => setTimeout(resolve, seconds * 1000));
		return runScan({...flags, db: undefined, home: demo.home, profile: undefined}, io);
	});
}

/** `hfx demo`: the TUI on the demo store in a terminal, else its report after --seconds. */
export async function runDemo(flags: DemoFlags & TuiFlags, io: Io, notice: string | null = null): Promise<ExitCode> {
	if (isInteractive() && flags.seconds === undefined) {
		return withDemo(flags, io, demo => runLiveApp({path: demo.db, owner: 'default', label: 'DEMO'}, flags, io, notice));
	}

	return runDemoReport(flags, io);
}

/**
 * The stores the TUI follows: the one named (--db, --profile) or found alone; on a root with
 * profiles, every profile's (the first focused), with the line the TUI says of them on its notice line.
 */
function storesToShow(flags: GlobalFlags, io: Io): {locations: StoreLocation[]; notice: string | null} | ExitCode {
	try {
		const located = locate(flags, io);
		if (located.stores.length > 1 && !flags.profile) {
			return {
				locations: located.stores,
				notice:
					`${located.stores.length} stores, showing ${located.stores[0]!.label}: P ` +
					`switches profile (--profile NAME follows one) · under ${located.root}`,
			};
		}

		return {locations: [located.stores[0]!], notice: null};
	} catch (error) {
		return refusalExit(error, io.err);
	}
}

export async function runTui(flags: TuiFlags, io: Io): Promise<ExitCode> {
	if (!isInteractive()) {
		return runScan(flags, io);
	}

	if (shouldDemo(flags, io)) {
		// Said inside the TUI, on its notice line from the first frame (a line on stderr is behind the full screen until
		// quit).
		return runDemo(
			{...flags, speed: 1, keep: false, seconds: undefined},
			io,
			'no Hermes home here: this is the live DEMO. Yours: hfx --db PATH or --home DIR',
		);
	}

	const shown = storesToShow(flags, io);
	return typeof shown === 'number' ? shown : runLiveApp(shown.locations, flags, io, shown.notice);
}
