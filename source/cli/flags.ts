/**
 * Every flag hfx takes, once: its type for meow, the word its value is shown as, and the line its
 * help prints. A command names the flags it takes (source/cli/commands.ts); a flag it does not
 * name is refused on its line, never ignored.
 *
 * Values are read as strings and checked by the command line (source/cli/main.tsx), so a bad number is
 * one usage line naming the flag, never a NaN that reaches a command.
 */

/** A flag's value as meow hands it over. */
export type FlagValue = string | boolean | string[] | undefined;

export type FlagDef =
	| {type: 'string'; value: string; help: string; short?: string; multiple?: boolean}
	| {type: 'boolean'; help: string; default?: boolean};

/** The flags that find and judge a store: every command that reads one takes these. */
export const STORE_FLAGS = {
	db: {
		type: 'string',
		value: 'PATH',
		help:
			'one state.db file; its owner profile comes from its path, as in Hermes ' +
			'(…/profiles/NAME/state.db is NAME, any other is default)',
	},
	home: {
		type: 'string',
		value: 'DIR',
		help:
			'a Hermes root: its state.db and every profiles/NAME/state.db (default: ' +
			'$HERMES_HOME, else ~/.hermes); with --db, confirms it',
	},
	profile: {
		type: 'string',
		value: 'NAME',
		help: "only that profile's store under the root; with --db, confirms the owner (a conflict is refused)",
	},
	routingScope: {
		type: 'string',
		value: 'DIR',
		help:
			'with --db on a copy: the sessions folder of the gateway the store came ' +
			"from (default: <the store's folder>/sessions, resolved)",
	},
	maxGapSeconds: {type: 'string', value: 'N', help: "repair-routing's contiguity window in seconds (default 900)"},
} as const satisfies Record<string, FlagDef>;

/** Where a command's report goes. */
export const OUTPUT_FLAGS = {
	json: {type: 'boolean', help: 'machine-readable output (stable fields; see README)'},
	color: {type: 'boolean', default: true, help: 'monochrome (NO_COLOR is honoured too)'},
} as const satisfies Record<string, FlagDef>;

/** The root a backup command works on, found as the store commands find it. */
export const ROOT_FLAGS = {
	db: STORE_FLAGS.db,
	home: STORE_FLAGS.home,
	profile: STORE_FLAGS.profile,
	output: {type: 'string', short: 'o', value: 'DIR', help: 'the archive folder (default <root>/backups/)'},
} as const satisfies Record<string, FlagDef>;

/** Flags only one command takes. */
export const OWN_FLAGS = {
	source: {type: 'string', value: 'NAME', help: 'only this source (telegram, discord, cli...)'},
	limit: {type: 'string', value: 'N', help: 'at most N rows (default 50; 0 = all)'},
	all: {type: 'boolean', help: 'include tool and delegate rows'},
	searchLimit: {type: 'string', value: 'N', help: 'at most N hits per store (default 20, at most 1000)'},
	before: {
		type: 'string',
		value: 'IMAGE',
		help:
			'a backup, quick snapshot, emergency snapshot or retired capture of this ' +
			'store: the chat at that moment on the axis, and what changed since (as ' +
			'hfx diff IMAGE STORE)',
	},
	apply: {
		type: 'boolean',
		help: 'write the adoptions, fail-closed (no holders, a verified snapshot, the plan re-checked in the transaction)',
	},
	only: {type: 'string', value: 'ID', multiple: true, help: 'only this orphan (repeatable)'},
	donor: {
		type: 'string',
		value: 'DONOR',
		help:
			'with one --only ORPHAN that repair-routing refuses: adopt it from this ' +
			"keyed donor, your choice (the manual procedure of Hermes' tracking " +
			'issue; previewed, then --apply with every guarantee)',
	},
	yes: {type: 'boolean', help: 'no typed confirmation (for scripts)'},
	undo: {
		type: 'string',
		value: 'ENTRY',
		help: 'put back one applied repair, by its audit entry (refused if its columns changed since)',
	},
	speed: {type: 'string', value: 'N', help: 'time runs N times faster (default 1)'},
	pane: {
		type: 'string',
		value: 'NAME',
		help:
			'open the TUI on this pane: sessions, detail, lineage, routing, ' +
			'findings, files, activity or backups (default sessions)',
	},
	seconds: {type: 'string', value: 'N', help: 'without a terminal: run N seconds, then print the scan'},
	keepHome: {type: 'boolean', help: 'keep the temporary Hermes home on exit'},
	keepArchives: {
		type: 'string',
		value: 'N',
		help:
			'keep the newest N archives of this home in the folder, and of each ' +
			'series of its stamped tarballs there (NAME-YYYYmmdd-HHMMSS.tar.gz) ' +
			'(default 3; 0 keeps all)',
	},
	outputArchive: {
		type: 'string',
		short: 'o',
		value: 'PATH',
		help: 'the archive file, or a folder for it (default <root>/backups/)',
	},
	dryRun: {type: 'boolean', help: 'say what would be archived; write nothing'},
	quick: {type: 'boolean', help: "a quick snapshot in state-snapshots/ (Hermes' layout, newest 20 kept)"},
	label: {type: 'string', value: 'L', help: "the quick snapshot's label"},
	to: {type: 'string', value: 'DIR', help: 'restore into this folder'},
	homeTarget: {
		type: 'string',
		value: 'DIR',
		help: 'restore over this Hermes root (refused while the agent holds its store)',
	},
	drill: {type: 'boolean', help: 'restore into a scratch folder, scan, compare, record'},
	restoreDryRun: {
		type: 'boolean',
		help:
			'only say what the restore would drop and bring back, and per chat what ' +
			'a restart resumes now and after (the archive against the live store, ' +
			'read-only); write nothing (exit 0 drops nothing, 1 would drop)',
	},
	maxAge: {type: 'string', value: 'DURATION', help: 'the newest acceptable backup (default 30m)'},
	textfile: {
		type: 'string',
		value: 'PATH',
		help:
			"the .prom file to replace atomically, in node_exporter's " +
			'--collector.textfile.directory (metrics without it: stdout)',
	},
	interval: {type: 'string', value: 'DURATION', help: 'how often to re-read the stores (default 15s)'},
	jsonLines: {type: 'boolean', help: 'one JSON object per event line (for journald and log shippers)'},
	askHermes: {
		type: 'boolean',
		help:
			'when no running gateway states its build in gateway_state.json, run ' +
			'`hermes --version` (the hermes on PATH, no shell, 5 s timeout) to pick ' +
			'the rules of the installed build',
	},
	staleAfter: {
		type: 'string',
		value: 'DURATION',
		help: 'a backup-stale event when the newest verified or drilled backup is older (default 1d)',
	},
} as const satisfies Record<string, FlagDef>;

const kebab = (name: string): string => name.replace(/[A-Z]/g, c => `-${c.toLowerCase()}`);

/** `--max-gap-seconds N`, `-o, --output DIR`, `--no-color`: a flag as its help shows it. */
export function flagSynopsis(name: string, def: FlagDef): string {
	if (def.type === 'boolean') {
		return def.default === true ? `--no-${kebab(name)}` : `--${kebab(name)}`;
	}

	return `${def.short ? `-${def.short}, ` : ''}--${kebab(name)} ${def.value}`;
}
