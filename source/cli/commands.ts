/**
 * Every command hfx has, once: what it does, the operands and flags it takes, its exit codes, an
 * example, and its handler (the command's module, loaded only when it runs, so `hfx scan` in a cron
 * job never loads React or Ink). The parser, the help pages and the README's command reference are
 * all read from this table.
 */
import {type FlagDef, OUTPUT_FLAGS, OWN_FLAGS, ROOT_FLAGS, STORE_FLAGS} from './flags.js';
import {UsageError} from './args.js';
import type {ExitCode} from '../ground/errors.js';
import {type GlobalFlags, processIo as io} from '../ground/io.js';

import type {FlagValue} from './flags.js';

/** What a handler is given: its own flags (by name), its operands, the store and output flags, the raw line. */
export type Invocation = {
	flags: Readonly<Record<string, FlagValue>>;
	operands: string[];
	global: GlobalFlags;
	argv: string[];
};

/** A word after the command: `db` means a store path, read as --db. */
export type Operand = {name: string; required: boolean; as?: 'db'};

export type CommandSpec = {
	name: string;
	/** The synopsis after `hfx `, e.g. `repair --apply [--only ID]... [--yes]`. */
	usage: string[];
	summary: string;
	operands: Operand[];
	flags: Readonly<Record<string, FlagDef>>;
	exits: 'read' | 'write' | 'audit' | 'search';
	example: string;
	run: (a: Invocation) => Promise<ExitCode>;
};

export const EXIT_CODES = {
	read: [
		'0  healthy',
		'1  findings (an orphan, a rollback risk, a stale route)',
		'2  could not be done (one line on stderr says why)',
	],
	write: [
		'0  done and sound',
		'1  skipped / damaged / partial / blocked / warnings',
		'2  refused, nothing written (one line on stderr says why)',
	],
	audit: ['0  intact', '1  altered (where and how)', '2  unreadable (one line on stderr says why)'],
	search: [
		'0  hits',
		'1  no hit',
		'2  a store could not be searched, or the text was refused (one line on stderr says why)',
	],
} as const;

const STORE = {...STORE_FLAGS, ...OUTPUT_FLAGS};
const STORE_OPERAND: Operand = {name: 'STORE', required: false, as: 'db'};

/** A string flag's value as a whole number ≥ 0, or a usage error naming it. */
export function wholeNumber(value: FlagValue, flag: string, what: string): number | undefined {
	if (value === undefined) {
		return undefined;
	}

	const n = Number(value);
	if (typeof value !== 'string' || value.trim() === '' || !Number.isInteger(n) || n < 0) {
		throw new UsageError(`--${flag} takes a whole number of ${what}, not ${JSON.stringify(value)}`);
	}

	return n;
}

/** --limit of `hfx search`: 1 to 1000 hits per store (default 20). */
function searchLimit(value: FlagValue): number {
	const n = wholeNumber(value, 'limit', 'hits per store') ?? 20;
	if (n < 1 || n > 1000) {
		throw new UsageError(`--limit takes 1 to 1000 hits per store, not ${n}`);
	}

	return n;
}

const text = (value: FlagValue): string | undefined => (typeof value === 'string' ? value : undefined);

const READ_COMMANDS: CommandSpec[] = [
	{
		name: 'scan',
		usage: ['scan [STORE]'],
		summary: 'what is wrong: orphans, rollback risk, stale routing; what to do next',
		operands: [STORE_OPERAND],
		flags: {...STORE, askHermes: OWN_FLAGS.askHermes},
		exits: 'read',
		example: "hfx scan --db /srv/hermes/state.db --json | jq '.routing[] | select(.rollbackRisk)'",
		run: async ({flags, global}) =>
			(await import('../commands/analysis/scan.js')).runScan({...global, askHermes: flags.askHermes === true}, io),
	},
	{
		name: 'sessions',
		usage: ['sessions [STORE]'],
		summary: 'sessions, newest activity first',
		operands: [STORE_OPERAND],
		flags: {...STORE, source: OWN_FLAGS.source, limit: OWN_FLAGS.limit, all: OWN_FLAGS.all},
		exits: 'read',
		example: 'hfx sessions --source telegram --limit 0',
		run: async ({flags, global}) =>
			(await import('../commands/sessions/sessions.js')).runSessions(
				{
					...global,
					source: text(flags.source),
					limit: wholeNumber(flags.limit, 'limit', 'rows (0 = all)') ?? 50,
					all: flags.all === true,
				},
				io,
			),
	},
	{
		name: 'lineage',
		usage: ['lineage ID'],
		summary: 'where a session came from and what continued it',
		operands: [{name: 'ID', required: true}],
		flags: STORE,
		exits: 'read',
		example: 'hfx lineage 20261128_0915',
		run: async ({operands, global}) =>
			(await import('../commands/sessions/lineage.js')).runLineage({...global, id: operands[0]!}, io),
	},
	{
		name: 'routing',
		usage: ['routing [KEY]'],
		summary: 'per chat: what a restart would resume, every candidate and its rule',
		operands: [{name: 'KEY', required: false}],
		flags: {...STORE, askHermes: OWN_FLAGS.askHermes},
		exits: 'read',
		example: 'hfx routing agent:main:telegram:dm:12345',
		run: async ({operands, flags, global}) =>
			(await import('../commands/analysis/routing.js')).runRouting(
				{...global, key: operands[0], askHermes: flags.askHermes === true},
				io,
			),
	},
	{
		name: 'diff',
		usage: ['diff A B'],
		summary:
			'per chat, what a restart resumes and where the newest message is at two ' +
			'moments (a store, an archive, a snapshot, a retired capture); sessions, ' +
			'routing, rollbacks',
		operands: [
			{name: 'A', required: true},
			{name: 'B', required: true},
		],
		flags: {profile: STORE_FLAGS.profile, maxGapSeconds: STORE_FLAGS.maxGapSeconds, ...OUTPUT_FLAGS},
		exits: 'read',
		example: 'hfx diff ~/.hermes/backups/hfx-backup-20261201-0900.zip ~/.hermes',
		run: async ({operands, global}) =>
			(await import('../commands/analysis/diff.js')).runDiff({...global, a: operands[0]!, b: operands[1]!}, io),
	},
	{
		name: 'timeline',
		usage: ['timeline CHAT [--before IMAGE]'],
		summary:
			'one chat on one time axis: its rows and why each belongs, message ' +
			'spans, rotations, the fork, the inferred restart and resume, routing ' +
			'moves, log lines, a before-image; what a restart now would do',
		operands: [{name: 'CHAT', required: true}],
		flags: {...STORE, before: OWN_FLAGS.before},
		exits: 'read',
		example:
			'hfx timeline agent:main:telegram:dm:777001 --before ' +
			'~/.hermes/state.db.pre-update-emergency-2026-12-01T09-00-00-000000Z-4242.bak',
		run: async ({operands, flags, global}) =>
			(await import('../commands/sessions/timeline.js')).runTimeline(
				{...global, chat: operands[0]!, before: text(flags.before)},
				io,
			),
	},
	{
		name: 'search',
		usage: ['search TEXT [--limit N]'],
		summary:
			"messages found by content in every profile's store, through Hermes' own " +
			"full-text indexes (read-only) or a bounded scan; each hit's row, chat, " +
			'time, role and snippet',
		operands: [{name: 'TEXT', required: true}],
		flags: {...STORE, limit: OWN_FLAGS.searchLimit},
		exits: 'search',
		example: 'hfx search "the PR that got merged" --home ~/.hermes',
		run: async ({flags, operands, global}) =>
			(await import('../commands/sessions/search.js')).runSearch(
				{...global, text: operands[0]!, limit: searchLimit(flags.limit)},
				io,
			),
	},
	{
		name: 'files',
		usage: ['files [STORE]'],
		summary:
			'state.db, -wal, -shm: WAL frame classes, checksum breaks, who holds the ' +
			'files; diverted transcripts, spool files and retired-WAL captures ' +
			'beside them',
		operands: [STORE_OPERAND],
		flags: STORE,
		exits: 'read',
		example: 'hfx files --db /srv/hermes/state.db',
		run: async ({global}) => (await import('../commands/analysis/files.js')).runFiles(global, io),
	},
	{
		name: 'repair',
		usage: [
			'repair',
			'repair --apply [--only ID]... [--yes]',
			'repair [--apply] --only ORPHAN --donor DONOR [--yes]',
			'repair --undo ENTRY',
		],
		summary:
			"dry run: each orphan's adoption as a before/after table and the restart " +
			'before and after; --apply adopts, fail-closed',
		operands: [],
		flags: {
			...STORE,
			apply: OWN_FLAGS.apply,
			only: OWN_FLAGS.only,
			donor: OWN_FLAGS.donor,
			yes: OWN_FLAGS.yes,
			undo: OWN_FLAGS.undo,
			askHermes: OWN_FLAGS.askHermes,
		},
		exits: 'read',
		example: 'hfx repair --apply --only 20261128_0915_ab12cd',
		run: async ({flags, global, argv}) =>
			(await import('../commands/repair/repair.js')).runRepair(
				{
					...global,
					apply: flags.apply === true,
					only: (flags.only as string[] | undefined) ?? [],
					donor: text(flags.donor),
					yes: flags.yes === true,
					undo: text(flags.undo),
					askHermes: flags.askHermes === true,
					argv,
				},
				io,
			),
	},
	{
		name: 'audit',
		usage: ['audit verify [FILE]', 'audit show [FILE]'],
		summary:
			'check the hash chain of the repair audit trail; show each entry, the ' +
			'rows it touched, which apply an undo reverted',
		operands: [
			{name: 'ACTION', required: true},
			{name: 'FILE', required: false},
		],
		flags: STORE,
		exits: 'audit',
		example: 'hfx audit show --db ~/.hermes/state.db',
		run: async ({operands, global}) => {
			const action = operands[0];
			if (action !== 'verify' && action !== 'show') {
				throw new UsageError(`audit takes verify or show, not ${JSON.stringify(action)}`);
			}

			return (await import('../commands/repair/audit.js')).runAudit({...global, action, file: operands[1]}, io);
		},
	},
];

const BACKUP_COMMANDS: CommandSpec[] = [
	{
		name: 'backup',
		usage: ['backup [-o PATH] [--keep N] [--dry-run]', 'backup --quick [--label L]'],
		summary: 'one verified zip of the whole Hermes root (an archive holds credentials: never send it to anyone)',
		operands: [],
		flags: {
			...ROOT_FLAGS,
			...OUTPUT_FLAGS,
			output: OWN_FLAGS.outputArchive,
			keep: OWN_FLAGS.keepArchives,
			dryRun: OWN_FLAGS.dryRun,
			quick: OWN_FLAGS.quick,
			label: OWN_FLAGS.label,
		},
		exits: 'write',
		example: 'hfx backup --keep 7',
		run: async ({flags, global}) =>
			(await import('../commands/backups/backup.js')).runBackup(
				{
					...global,
					output: text(flags.output),
					keep: wholeNumber(flags.keep, 'keep', 'archives (0 keeps all)'),
					dryRun: flags.dryRun === true,
					quick: flags.quick === true,
					label: text(flags.label),
				},
				io,
			),
	},
	{
		name: 'verify',
		usage: ['verify ARCHIVE|SNAPSHOT'],
		summary: 'every byte and every database (also tar.gz of a home or volume)',
		operands: [{name: 'ARCHIVE', required: true}],
		flags: OUTPUT_FLAGS,
		exits: 'write',
		example: 'hfx verify ~/.hermes/backups/hfx-backup-20261201-0900.zip',
		run: async ({operands, global}) =>
			(await import('../commands/backups/verify.js')).runVerify({...global, target: operands[0]!}, io),
	},
	{
		name: 'restore',
		usage: [
			'restore ARCHIVE --to DIR | --home DIR [--yes]',
			'restore ARCHIVE --home DIR --dry-run',
			'restore --drill ARCHIVE',
		],
		summary: 'verified restore of a zip, quick snapshot or tar.gz; refuses while the agent holds the store',
		operands: [{name: 'ARCHIVE', required: true}],
		flags: {
			...OUTPUT_FLAGS,
			to: OWN_FLAGS.to,
			home: OWN_FLAGS.homeTarget,
			yes: OWN_FLAGS.yes,
			drill: OWN_FLAGS.drill,
			dryRun: OWN_FLAGS.restoreDryRun,
		},
		exits: 'write',
		example: 'hfx restore --drill ~/.hermes/backups/hfx-backup-20261201-0900.zip',
		run: async ({flags, operands, global}) => {
			if (flags.to && flags.home) {
				throw new UsageError('restore takes one target: --to DIR or --home DIR');
			}

			if (flags.drill && flags.dryRun) {
				throw new UsageError('restore takes --drill or --dry-run, not both');
			}

			return (await import('../commands/backups/restore.js')).runRestore(
				{
					...global,
					archive: operands[0]!,
					to: text(flags.to),
					yes: flags.yes === true,
					drill: flags.drill === true,
					dryRun: flags.dryRun === true,
				},
				io,
			);
		},
	},
	{
		name: 'backups',
		usage: ['backups'],
		summary: 'archives and snapshots: age, size, verified, drilled',
		operands: [],
		flags: {...ROOT_FLAGS, ...OUTPUT_FLAGS},
		exits: 'write',
		example: 'hfx backups --json',
		run: async ({flags, global}) =>
			(await import('../commands/backups/backups.js')).runBackups({...global, output: text(flags.output)}, io),
	},
	{
		name: 'gate',
		usage: ['gate [--max-age 30m]'],
		summary: 'exit 0 only with a fresh, verified, drilled backup',
		operands: [],
		flags: {...ROOT_FLAGS, ...OUTPUT_FLAGS, maxAge: OWN_FLAGS.maxAge},
		exits: 'write',
		example: 'hfx gate --max-age 1h && docker compose build',
		run: async ({flags, global}) =>
			(await import('../commands/backups/gate.js')).runGate(
				{...global, output: text(flags.output), maxAge: text(flags.maxAge)},
				io,
			),
	},
	{
		name: 'doctor',
		usage: ['doctor'],
		summary: 'where the root lives, what survives a restart or a rebuild',
		operands: [],
		flags: {...ROOT_FLAGS, ...OUTPUT_FLAGS},
		exits: 'write',
		example: 'hfx doctor --home /srv/hermes',
		run: async ({flags, global}) =>
			(await import('../commands/backups/doctor.js')).runDoctor({...global, output: text(flags.output)}, io),
	},
];

/**
 * Prometheus, for a fleet: node_exporter's textfile collector reads what these write (contrib/ has the rules and
 * units).
 */
const FLEET_COMMANDS: CommandSpec[] = [
	{
		name: 'metrics',
		usage: ['metrics [--textfile PATH]'],
		summary:
			"every store under the root in Prometheus' exposition format (counts " +
			'only: no session ids or keys in labels), on stdout or replacing PATH ' +
			'atomically',
		operands: [],
		flags: {...STORE_FLAGS, color: OUTPUT_FLAGS.color, textfile: OWN_FLAGS.textfile},
		exits: 'write',
		example: 'hfx metrics --textfile /var/lib/prometheus/node-exporter/hfx.prom',
		run: async ({flags, global}) =>
			(await import('../commands/metrics/metrics.js')).runMetrics({...global, textfile: text(flags.textfile)}, io),
	},
	{
		// Headless: commands/metrics/watch.ts loads neither Ink nor React (test/commands/metrics/watch.test.ts checks).
		name: 'watch',
		usage: ['watch [--interval 15s] [--textfile PATH] [--json-lines] [--max-age 1d]'],
		summary:
			'the headless follower for systemd or a container: one line per event (a ' +
			'rollback that happened, rollback risk raised or cleared, orphan, every ' +
			'other finding hfx scan reports, rotation, stale backup), the textfile ' +
			'kept current',
		operands: [],
		flags: {
			...STORE_FLAGS,
			color: OUTPUT_FLAGS.color,
			textfile: OWN_FLAGS.textfile,
			interval: OWN_FLAGS.interval,
			jsonLines: OWN_FLAGS.jsonLines,
			maxAge: OWN_FLAGS.staleAfter,
		},
		exits: 'write',
		example: 'hfx watch --json-lines --textfile /var/lib/prometheus/node-exporter/hfx.prom',
		run: async ({flags, global}) =>
			(await import('../commands/metrics/watch.js')).runWatch(
				{
					...global,
					textfile: text(flags.textfile),
					interval: text(flags.interval),
					jsonLines: flags.jsonLines === true,
					maxAge: text(flags.maxAge),
				},
				io,
			),
	},
];

/** A positive number of times faster, and a non-negative number of seconds, or a usage error. */
function demoTiming(flags: Invocation['flags']): {speed: number; seconds: number | undefined} {
	const speed = flags.speed === undefined ? 1 : Number(flags.speed);
	const seconds = flags.seconds === undefined ? undefined : Number(flags.seconds);
	if (!Number.isFinite(speed) || speed <= 0 || (seconds !== undefined && (!Number.isFinite(seconds) || seconds < 0))) {
		throw new UsageError('--speed must be a positive number and --seconds a non-negative number');
	}

	return {speed, seconds};
}

const LIVE_COMMANDS: CommandSpec[] = [
	{
		name: '',
		usage: [''],
		summary:
			'the live TUI (a text report when stdout/stdin is not a terminal; the built-in demo when there is no store)',
		operands: [],
		flags: {...STORE, pane: OWN_FLAGS.pane},
		exits: 'read',
		example: 'hfx --home ~/.hermes --pane findings',
		run: async ({flags, global}) => {
			const live = await import('./live.js');
			return live.runTui({...global, pane: live.paneFlag(flags.pane)}, io);
		},
	},
	{
		name: 'demo',
		usage: ['demo'],
		summary: 'a simulated gateway writes a temporary store live; the incident a minute in',
		operands: [],
		flags: {
			...OUTPUT_FLAGS,
			speed: OWN_FLAGS.speed,
			seconds: OWN_FLAGS.seconds,
			keep: OWN_FLAGS.keepHome,
			pane: OWN_FLAGS.pane,
		},
		exits: 'read',
		example: 'hfx demo --speed 10',
		run: async ({flags, global}) => {
			const live = await import('./live.js');
			return live.runDemo(
				{...global, ...demoTiming(flags), keep: flags.keep === true, pane: live.paneFlag(flags.pane)},
				io,
			);
		},
	},
];

export const COMMANDS: readonly CommandSpec[] = [
	...LIVE_COMMANDS.slice(0, 1),
	...READ_COMMANDS,
	LIVE_COMMANDS[1]!,
	...BACKUP_COMMANDS,
	...FLEET_COMMANDS,
];

export function commandNamed(name: string): CommandSpec | undefined {
	return COMMANDS.find(c => c.name === name);
}
