#!/usr/bin/env node
/**
 * hfx entry point: flags, colour and TTY decisions, dispatch. Commands are loaded lazily so that
 * `hfx scan` in a cron job never loads React or Ink.
 */
import process from 'node:process';
import {FLAGS, UsageError, parseArgs} from './cli-args.js';
import type {ExitCode} from './errors.js';
import {type GlobalFlags, processIo as io} from './io.js';
import {PROFILE_NAME} from './store/locate.js';
import {toolVersion} from './version.js';

// React's development build diffs props and checks invariants on every render: not for operators.
process.env.NODE_ENV ??= 'production';

export const HELP = `
  hfx: live forensics of Hermes Agent's session store (state.db). Read-only unless you ask for a repair or restore.

  Usage
    $ hfx                           the live TUI (a text report when stdout/stdin is not a terminal)
    $ hfx scan                      what is wrong: orphans, rollback risk, stale routing; what to do next
    $ hfx sessions                  sessions, newest activity first
    $ hfx lineage ID                where a session came from and what continued it
    $ hfx routing [KEY]             per chat: what a restart would resume, every candidate and its rule
    $ hfx files                     state.db, -wal, -shm: WAL frame classes, checksum breaks, who holds the files
    $ hfx repair                    dry run: each orphan's adoption as a before/after table, the restart before and after
    $ hfx repair --apply [--only ID]... [--yes]
                                    adopt, fail-closed: no holders, a verified snapshot, the plan re-checked in the transaction
    $ hfx repair --undo ENTRY       put back one applied repair (refused if its columns changed since)
    $ hfx audit verify [FILE]       check the hash chain of the repair audit trail
    $ hfx demo                      a simulated gateway writes a temporary store live; the incident a minute in

  Backups (an archive holds credentials: never send it to anyone)
    $ hfx backup [-o PATH] [--keep N] [--dry-run]
                                    one verified zip of the whole Hermes root (default <root>/backups/)
    $ hfx backup --quick [--label L]
                                    a quick snapshot in state-snapshots/ (Hermes' layout, newest 20 kept)
    $ hfx verify ARCHIVE|SNAPSHOT   every byte and every database (also tar.gz of a home or volume)
    $ hfx restore ARCHIVE --to DIR | --home DIR [--yes]
                                    verified restore; refuses while the agent holds the store
    $ hfx restore --drill ARCHIVE   restore into a scratch folder, scan, compare, record
    $ hfx backups                   archives and snapshots: age, size, verified, drilled
    $ hfx gate [--max-age 30m]      exit 0 only with a fresh, verified, drilled backup: hfx gate && docker compose build
    $ hfx doctor                    where the root lives, what survives a restart or a rebuild

  Fleet (Prometheus: node_exporter's textfile collector; contrib/ has the alert rules and systemd units)
    $ hfx metrics [--textfile PATH] every store under the root in Prometheus' exposition format (stdout, or PATH
                                    replaced atomically); read-only, counts only (no session ids or keys in labels)
    $ hfx watch [--interval 15s] [--textfile PATH] [--json-lines] [--max-age 1d]
                                    headless follower for systemd: one line per event (rollback risk raised or
                                    cleared, orphan, rotation, backup older than --max-age), the textfile kept current

  Where the store is
    --db PATH                       one state.db file; its owner profile comes from its path, as in
                                    Hermes (…/profiles/NAME/state.db is NAME, any other is default)
    --home DIR                      a Hermes root: its state.db and every profiles/NAME/state.db
                                    (default: $HERMES_HOME, else ~/.hermes); with --db, confirms it
    --profile NAME                  only that profile's store under the root; with --db, confirms
                                    the owner (a conflict is refused)
    --routing-scope DIR             with --db on a copy: the sessions folder of the gateway the store
                                    came from (default: <the store's folder>/sessions, resolved)

  Options
    --json                          machine-readable output (stable fields; see README)
    --max-gap-seconds N             repair-routing's contiguity window (default 900)
    --source NAME                   sessions: only this source (telegram, discord, cli...)
    --limit N                       sessions: at most N rows (default 50; 0 = all)
    --all                           sessions: include tool and delegate rows
    --speed N                       demo: time runs N times faster (default 1)
    --seconds N                     demo without a terminal: run N seconds, then print the scan
    --keep                          demo: keep the temporary Hermes home on exit; backup: --keep N archives (default 3)
    -o, --output PATH               backup: the archive file or folder; backups/gate/doctor: the archive folder
    --to DIR, --yes, --drill        restore: target folder, no confirmation prompt, restore drill
    --max-age DURATION              gate: newest acceptable backup (default 30m); watch: the backup-stale bound (default 1d)
    --textfile PATH                 metrics, watch: the .prom file to replace atomically (node_exporter's textfile folder)
    --interval DURATION             watch: how often to re-read the stores (default 15s)
    --json-lines                    watch: one JSON object per event line (for journald and log shippers)
    --no-color                      monochrome (also honoured: NO_COLOR)
    --help, --version

  Exit codes
    0  healthy / done          1  findings (an orphan or a rollback risk)          2  could not be done (one line on stderr says why)
    backup, verify, restore, gate, doctor: 0 done and sound   1 skipped / damaged / partial / blocked / warnings   2 refused, nothing written

  In the TUI: 1-8 or Tab switch panes, j/k move, Enter opens, / filters, p pauses, y copies, ? lists every key, q quits.

  Examples
    $ hfx                           # live view of ~/.hermes (the demo when there is none)
    $ hfx scan --home ~/.hermes
    $ hfx scan --db /srv/hermes/state.db --json | jq '.routing[] | select(.rollbackRisk)'
    $ hfx routing agent:main:telegram:dm:12345
`;

export type ParsedCli = ReturnType<typeof parse>;

/** Parses hfx's command line (throws UsageError on anything it does not take). */
export function parse(argv: readonly string[]) {
	return parseArgs(argv, FLAGS);
}

function usage(message: string): ExitCode {
	process.stderr.write(`hfx: ${message}. See: hfx --help\n`);
	return 2;
}

/** What a command's dispatcher is handed: the parsed line, the words after the command, the shared flags. */
type Dispatch = {cli: ParsedCli; rest: string[]; flags: GlobalFlags; argv: string[]};

/** One entry a command: its own flags checked (a usage line and exit 2), its module loaded only when it runs. */
const COMMANDS: Record<string, (d: Dispatch) => Promise<ExitCode>> = {
	'': async ({flags}) => {
		const {runTui} = await import('./cli-live.js');
		return runTui(flags, io);
	},

	scan: async ({flags}) => {
		const {runScan} = await import('./commands/scan.js');
		return runScan(flags, io);
	},

	repair: async ({cli, flags, argv}) => {
		const {runRepair} = await import('./commands/repair.js');
		return runRepair({...flags, apply: cli.flags.apply, only: cli.flags.only ?? [], yes: cli.flags.yes, undo: cli.flags.undo, argv}, io);
	},

	audit: async ({rest, flags}) => {
		const {runAudit} = await import('./commands/audit.js');
		return runAudit({...flags, action: rest[0], file: rest[1]}, io);
	},

	files: async ({flags}) => {
		const {runFiles} = await import('./commands/files.js');
		return runFiles(flags, io);
	},

	demo: async ({cli, flags}) => {
		const speed = cli.flags.speed === undefined ? 1 : Number(cli.flags.speed);
		const seconds = cli.flags.seconds === undefined ? undefined : Number(cli.flags.seconds);
		if (!Number.isFinite(speed) || speed <= 0 || (seconds !== undefined && (!Number.isFinite(seconds) || seconds < 0))) {
			return usage('--speed must be a positive number and --seconds a non-negative number');
		}

		const {runDemo} = await import('./cli-live.js');
		return runDemo({...flags, speed, keep: cli.flags.keep !== undefined, seconds}, io);
	},

	sessions: async ({cli, flags}) => {
		const {runSessions} = await import('./commands/sessions.js');
		return runSessions({...flags, source: cli.flags.source, limit: cli.flags.limit, all: cli.flags.all}, io);
	},

	lineage: async ({rest, flags}) => {
		if (!rest[0]) {
			return usage('lineage needs a session id: hfx lineage ID');
		}

		const {runLineage} = await import('./commands/lineage.js');
		return runLineage({...flags, id: rest[0]}, io);
	},

	routing: async ({rest, flags}) => {
		const {runRouting} = await import('./commands/routing.js');
		return runRouting({...flags, key: rest[0]}, io);
	},

	backup: async ({cli, flags}) => {
		const keep = cli.flags.keep === undefined ? undefined : Number(cli.flags.keep);
		if (keep !== undefined && (cli.flags.keep === '' || !Number.isInteger(keep) || keep < 0)) {
			return usage(`--keep needs a whole number of archives (0 keeps all), not ${JSON.stringify(cli.flags.keep)}`);
		}

		const {runBackup} = await import('./commands/backup.js');
		return runBackup({...flags, output: cli.flags.output, keep, dryRun: cli.flags.dryRun, quick: cli.flags.quick, label: cli.flags.label}, io);
	},

	verify: async ({rest, flags}) => {
		if (!rest[0]) {
			return usage('verify needs an archive or snapshot folder: hfx verify PATH');
		}

		const {runVerify} = await import('./commands/verify.js');
		return runVerify({...flags, target: rest[0]}, io);
	},

	restore: async ({cli, rest, flags}) => {
		if (!rest[0]) {
			return usage('restore needs an archive: hfx restore ARCHIVE --to DIR | --home DIR, or hfx restore --drill ARCHIVE');
		}

		if (cli.flags.to && cli.flags.home) {
			return usage('restore takes one target: --to DIR or --home DIR');
		}

		const {runRestore} = await import('./commands/restore.js');
		return runRestore({...flags, archive: rest[0], to: cli.flags.to, yes: cli.flags.yes, drill: cli.flags.drill}, io);
	},

	backups: async ({cli, flags}) => {
		const {runBackups} = await import('./commands/backups.js');
		return runBackups({...flags, output: cli.flags.output}, io);
	},

	gate: async ({cli, flags}) => {
		const {runGate} = await import('./commands/gate.js');
		return runGate({...flags, output: cli.flags.output, maxAge: cli.flags.maxAge}, io);
	},

	metrics: async ({cli, flags}) => {
		const {runMetrics} = await import('./commands/metrics.js');
		return runMetrics({...flags, textfile: cli.flags.textfile}, io);
	},

	// Headless: commands/watch.ts loads neither Ink nor React (test/commands/watch.test.ts checks).
	watch: async ({cli, flags}) => {
		const {runWatch} = await import('./commands/watch.js');
		return runWatch({...flags, textfile: cli.flags.textfile, interval: cli.flags.interval, jsonLines: cli.flags.jsonLines, maxAge: cli.flags.maxAge}, io);
	},

	doctor: async ({cli, flags}) => {
		const {runDoctor} = await import('./commands/doctor.js');
		return runDoctor({...flags, output: cli.flags.output}, io);
	},
};

export async function main(argv: string[]): Promise<ExitCode> {
	let cli: ParsedCli;
	try {
		cli = parse(argv);
	} catch (error) {
		if (error instanceof UsageError) {
			return usage(error.message);
		}

		throw error;
	}

	if (cli.help) {
		process.stdout.write(`${HELP}\n`);
		return 0;
	}

	if (cli.version) {
		process.stdout.write(`${toolVersion()}\n`);
		return 0;
	}

	// Ink 6.8's chalk (5.6, its bundled supports-color) ignores NO_COLOR but honours FORCE_COLOR=0:
	// colour is decided here, before any command (and so chalk) is imported, from the parsed flags
	// (--no-color and --color=false alike).
	const color = cli.flags.color && !process.env.NO_COLOR;
	if (!color) {
		process.env.FORCE_COLOR = '0';
	}

	const [command = '', ...rest] = cli.input;
	const gap = cli.flags.maxGapSeconds === undefined ? 900 : Number(cli.flags.maxGapSeconds);
	if (!Number.isFinite(gap) || gap < 0) {
		return usage(`--max-gap-seconds must be a non-negative number of seconds, not ${JSON.stringify(cli.flags.maxGapSeconds)}`);
	}

	// A profile is a name, never a path: `--profile ../../etc` would make a home outside the root.
	if (cli.flags.profile !== undefined && !PROFILE_NAME.test(cli.flags.profile)) {
		return usage(`--profile takes a profile name (lowercase letters, digits, - and _), not ${JSON.stringify(cli.flags.profile)}`);
	}

	if (!Number.isInteger(cli.flags.limit) || cli.flags.limit < 0) {
		return usage(`--limit takes a whole number of rows (0 = all), not ${JSON.stringify(cli.flags.limit)}`);
	}

	const flags: GlobalFlags = {
		db: cli.flags.db,
		home: cli.flags.home,
		profile: cli.flags.profile,
		routingScope: cli.flags.routingScope,
		json: cli.flags.json,
		maxGapSeconds: gap,
		color,
	};
	const dispatch = COMMANDS[command];
	return dispatch ? dispatch({cli, rest, flags, argv}) : usage(`unknown command ${JSON.stringify(command)}`);
}

// `hfx scan | head`: a closed pipe is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
	stream.on('error', (error: NodeJS.ErrnoException) => {
		if (error.code === 'EPIPE') {
			process.exit(process.exitCode ?? 0);
		}

		throw error;
	});
}

main(process.argv.slice(2)).then(async code => {
	const {deferredExitCode} = await import('./interrupts.js');
	const interrupted = deferredExitCode();
	if (interrupted !== null) {
		// Interrupted during a write: it was finished, verified and recorded; now honour the signal.
		process.exit(interrupted);
	}

	process.exitCode = code;
}, (error: unknown) => {
	process.stderr.write(`hfx: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	// The bundled bin's identifiers are minified; its source map names them again.
	const mapped = (process as {sourceMapsEnabled?: boolean}).sourceMapsEnabled === true;
	if (import.meta.url.endsWith('/hfx.js') && !mapped) {
		process.stderr.write('hfx: for a trace with file and function names, run the same command with NODE_OPTIONS=--enable-source-maps\n');
	}

	process.exitCode = 2;
});
