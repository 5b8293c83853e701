/**
 * The command line: one table of flags, one strict parser. Flags are written kebab-case
 * (`--max-gap-seconds`) and read camelCase; `--name=value` and `--name value` both work; a
 * boolean flag is switched off with `--no-name`; `--` ends the flags. Anything the table does not
 * know, a flag given twice, a missing or malformed value: a UsageError naming the flag (hfx prints
 * one line and exits 2), never a guess.
 *
 * (meow did this job; loading it and its bundled dependencies cost ~12 ms of every start of the
 * bundled bin (alternating A/B of TUI starts), and it let a repeated flag escape as an internal
 * error and a bare `--db` fall back to ~/.hermes. node:util's parseArgs on Node 20 has no `--no-`
 * negation.)
 */

type Spec =
	| {type: 'string'; short?: string; multiple?: boolean; bare?: 'empty-unless-number'}
	| {type: 'boolean'; default: boolean}
	| {type: 'number'; default: number};

/** Every flag hfx takes (by camelCase name). */
export const FLAGS = {
	db: {type: 'string'},
	home: {type: 'string'},
	profile: {type: 'string'},
	routingScope: {type: 'string'},
	json: {type: 'boolean', default: false},
	maxGapSeconds: {type: 'string'},
	source: {type: 'string'},
	limit: {type: 'number', default: 50},
	all: {type: 'boolean', default: false},
	color: {type: 'boolean', default: true},
	speed: {type: 'string'},
	seconds: {type: 'string'},
	// demo: bare --keep keeps its temp home; backup: --keep N archives. A bare --keep reads as ''
	// and takes the next word only when it is a whole number (so `--keep demo` is no value).
	keep: {type: 'string', bare: 'empty-unless-number'},
	output: {type: 'string', short: 'o'},
	dryRun: {type: 'boolean', default: false},
	quick: {type: 'boolean', default: false},
	label: {type: 'string'},
	to: {type: 'string'},
	yes: {type: 'boolean', default: false},
	drill: {type: 'boolean', default: false},
	maxAge: {type: 'string'},
	apply: {type: 'boolean', default: false},
	only: {type: 'string', multiple: true},
	undo: {type: 'string'},
	textfile: {type: 'string'},
	interval: {type: 'string'},
	jsonLines: {type: 'boolean', default: false},
} as const satisfies Record<string, Spec>;

type Table = Record<string, Spec>;
type ValueOf<S extends Spec> = S extends {type: 'boolean'} ? boolean
	: S extends {type: 'number'} ? number
		: S extends {multiple: true} ? string[] | undefined
			: string | undefined;

export type Flags<T extends Table> = {[K in keyof T]: ValueOf<T[K]>};

export type ParsedArgs<T extends Table> = {
	/** The words that are not flags: the command and its arguments. */
	input: string[];
	flags: Flags<T>;
	/** `--help` / `-h` anywhere. */
	help: boolean;
	/** `--version` anywhere. */
	version: boolean;
};

export class UsageError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'UsageError';
	}
}

const camel = (name: string): string => name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
const kebab = (name: string): string => name.replace(/[A-Z]/g, c => `-${c.toLowerCase()}`);

/** What one `-x`/`--name[=value]` word names: the flag as written, its table name, an inline value, or a `--no-` negation. */
type Named = {written: string; name: string | undefined; inline: string | undefined; negated: string | null};

function nameOf(arg: string, table: Table, shorts: ReadonlyMap<string, string>): Named {
	if (arg.startsWith('--')) {
		const eq = arg.indexOf('=');
		const written = eq < 0 ? arg : arg.slice(0, eq);
		const inline = eq < 0 ? undefined : arg.slice(eq + 1);
		const name = camel(written.slice(2));
		if (!Object.hasOwn(table, name) && name.startsWith('no') && name.length > 2) {
			// --no-color: only a boolean flag has a negation.
			const positive = name[2]!.toLowerCase() + name.slice(3);
			if (table[positive]?.type === 'boolean' && inline === undefined) {
				return {written, name, inline, negated: positive};
			}
		}

		return {written, name, inline, negated: null};
	}

	return {written: arg, name: shorts.get(arg.slice(1)), inline: undefined, negated: null};
}

/** A string or number flag's value: inline, the next word (then `skip` is 1), or a bare `--keep`. */
function valueOf(spec: Spec, written: string, inline: string | undefined, next: string | undefined): {value: string; skip: number} {
	if (inline !== undefined) {
		return {value: inline, skip: 0};
	}

	if (spec.type === 'string' && spec.bare) {
		return next !== undefined && /^\d+$/.test(next) ? {value: next, skip: 1} : {value: '', skip: 0};
	}

	if (next === undefined || (next.startsWith('-') && next !== '-' && !/^-\d/.test(next))) {
		throw new UsageError(`${written} needs a value`);
	}

	return {value: next, skip: 1};
}

/** The value a flag word sets, and how many following words it took. */
function flagValue(spec: Spec, named: Named, next: string | undefined): {value: unknown; skip: number} {
	const {written, inline} = named;
	if (spec.type === 'boolean') {
		if (inline === undefined || inline === 'true' || inline === 'false') {
			return {value: inline !== 'false', skip: 0};
		}

		throw new UsageError(`${written} is a switch (true or false), not ${JSON.stringify(inline)}`);
	}

	const {value, skip} = valueOf(spec, written, inline, next);
	if (spec.type === 'number') {
		const n = Number(value);
		if (value.trim() === '' || !Number.isFinite(n)) {
			throw new UsageError(`${written} needs a number, not ${JSON.stringify(value)}`);
		}

		return {value: n, skip};
	}

	return {value, skip};
}

/** Records a flag's value: a repeated flag is refused unless it takes several. */
function setter(table: Table, flags: Record<string, unknown>): (name: string, value: unknown) => void {
	const seen = new Set<string>();
	return (name, value) => {
		const spec = table[name]!;
		if (spec.type === 'string' && spec.multiple) {
			((flags[name] ??= []) as unknown[]).push(value);
			return;
		}

		if (seen.has(name)) {
			throw new UsageError(`--${kebab(name)} is given twice`);
		}

		seen.add(name);
		flags[name] = value;
	};
}

export function parseArgs<T extends Table>(argv: readonly string[], table: T): ParsedArgs<T> {
	const flags: Record<string, unknown> = {};
	const input: string[] = [];
	let help = false;
	let version = false;
	const shorts = new Map(Object.entries(table).flatMap(([name, spec]) => (spec.type === 'string' && spec.short ? [[spec.short, name] as const] : [])));
	const set = setter(table, flags);
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i]!;
		if (arg === '--') {
			input.push(...argv.slice(i + 1));
			break;
		}

		if (arg === '--help' || arg === '-h' || arg === '--version') {
			help ||= arg !== '--version';
			version ||= arg === '--version';
			continue;
		}

		if (!(arg.startsWith('--') && arg.length > 2) && !/^-[A-Za-z]$/.test(arg)) {
			if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg)) {
				throw new UsageError(`unknown flag ${arg}`);
			}

			input.push(arg);
			continue;
		}

		const named = nameOf(arg, table, shorts);
		if (named.negated !== null) {
			set(named.negated, false);
			continue;
		}

		const spec = named.name === undefined ? undefined : table[named.name];
		if (named.name === undefined || !spec) {
			throw new UsageError(`unknown flag ${named.written}`);
		}

		const {value, skip} = flagValue(spec, named, argv[i + 1]);
		set(named.name, value);
		i += skip;
	}

	for (const [name, spec] of Object.entries(table)) {
		if (!Object.hasOwn(flags, name) && spec.type !== 'string') {
			flags[name] = spec.default;
		}
	}

	return {input, flags: flags as Flags<T>, help, version};
}
