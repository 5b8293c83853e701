#!/usr/bin/env node
/**
 * hfx entry point: flags, colour and TTY decisions, dispatch. Commands are loaded lazily so that
 * `hfx scan` in a cron job never loads React or Ink.
 */
import process from 'node:process';
import meow from 'meow';
import type {ExitCode} from './errors.js';

// Ink's chalk ignores NO_COLOR (ink-stack.md §1.3 F): decide colour before anything imports it.
if (process.env.NO_COLOR || process.argv.includes('--no-color')) {
	process.env.FORCE_COLOR = '0';
}

export const HELP = `
  hfx: live forensics of Hermes Agent's session store (state.db). Read-only unless you ask for a repair or restore.

  Usage
    $ hfx                           the live TUI (a text report when stdout/stdin is not a terminal)
    $ hfx scan                      what is wrong: orphans, rollback risk, stale routing; what to do next
    $ hfx sessions                  sessions, newest activity first
    $ hfx lineage ID                where a session came from and what continued it
    $ hfx routing [KEY]             per chat: what a restart would resume, every candidate and its rule

  Where the store is
    --db PATH                       one state.db file
    --home DIR                      a Hermes root: its state.db and every profiles/NAME/state.db
                                    (default: $HERMES_HOME, else ~/.hermes)
    --profile NAME                  only that profile's store under the root

  Options
    --json                          machine-readable output (stable fields; see README)
    --max-gap-seconds N             repair-routing's contiguity window (default 900)
    --source NAME                   sessions: only this source (telegram, discord, cli...)
    --limit N                       sessions: at most N rows (default 50; 0 = all)
    --all                           sessions: include tool and delegate rows
    --no-color                      monochrome (also honoured: NO_COLOR)
    --help, --version

  Exit codes
    0  healthy / done          1  findings (an orphan or a rollback risk)          2  could not be done (one line on stderr says why)

  Examples
    $ hfx scan --home ~/.hermes
    $ hfx scan --db /srv/hermes/state.db --json | jq '.routing[] | select(.rollbackRisk)'
    $ hfx routing agent:main:telegram:dm:12345
`;

export type ParsedCli = ReturnType<typeof parse>;

export function parse(argv: string[]) {
	return meow(HELP, {
		importMeta: import.meta,
		argv,
		allowUnknownFlags: false,
		flags: {
			db: {type: 'string'},
			home: {type: 'string'},
			profile: {type: 'string'},
			json: {type: 'boolean', default: false},
			maxGapSeconds: {type: 'string'},
			source: {type: 'string'},
			limit: {type: 'number', default: 50},
			all: {type: 'boolean', default: false},
			color: {type: 'boolean', default: true},
		},
	});
}

function usage(message: string): ExitCode {
	process.stderr.write(`hfx: ${message}. See: hfx --help\n`);
	return 2;
}

export async function main(argv: string[]): Promise<ExitCode> {
	const cli = parse(argv);
	const [command = '', ...rest] = cli.input;
	const gap = cli.flags.maxGapSeconds === undefined ? 900 : Number(cli.flags.maxGapSeconds);
	if (!Number.isFinite(gap) || gap < 0) {
		return usage(`--max-gap-seconds must be a non-negative number of seconds, not ${JSON.stringify(cli.flags.maxGapSeconds)}`);
	}

	if (cli.flags.db && cli.flags.profile) {
		return usage('--db names one file; --profile selects a store under --home. Use one of them');
	}

	const {processIo} = await import('./commands/context.js');
	const flags = {
		db: cli.flags.db,
		home: cli.flags.home,
		profile: cli.flags.profile,
		json: cli.flags.json,
		maxGapSeconds: gap,
		color: cli.flags.color && !process.env.NO_COLOR,
	};
	switch (command) {
		case '':
		case 'scan': {
			const {runScan} = await import('./commands/scan.js');
			return runScan(flags, processIo);
		}

		case 'sessions': {
			const {runSessions} = await import('./commands/sessions.js');
			return runSessions({...flags, source: cli.flags.source, limit: cli.flags.limit, all: cli.flags.all}, processIo);
		}

		case 'lineage': {
			if (!rest[0]) {
				return usage('lineage needs a session id: hfx lineage ID');
			}

			const {runLineage} = await import('./commands/lineage.js');
			return runLineage({...flags, id: rest[0]}, processIo);
		}

		case 'routing': {
			const {runRouting} = await import('./commands/routing.js');
			return runRouting({...flags, key: rest[0]}, processIo);
		}

		default: {
			return usage(`unknown command ${JSON.stringify(command)}`);
		}
	}
}

main(process.argv.slice(2)).then(code => {
	process.exitCode = code;
}, (error: unknown) => {
	process.stderr.write(`hfx: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exitCode = 2;
});
