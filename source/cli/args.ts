/**
 * One command's line, parsed with meow against that command's own flags (`allowUnknownFlags:
 * false`): kebab-case on the line (`--max-gap-seconds`), camelCase in code; `--name=value` and
 * `--name value`; `--no-name` for a switch that is on by default; `--` ends the flags.
 *
 * What meow leaves to its caller is made one usage line here (hfx prints it and exits 2): meow
 * reports an unknown flag on several lines of its own and exits, and a flag given twice throws a
 * plain Error; both are caught while meow runs and become a UsageError naming the flag. A string
 * flag given without a value (`--db` at the end, or before another flag) is refused too, so a bare
 * `--db` never falls back to ~/.hermes.
 *
 * meow also sets process.title, which on Linux overwrites /proc/PID/cmdline with that one word: an
 * operator's `ps` (and another hfx listing who holds a store) would lose hfx's arguments. The title
 * is shielded while meow runs.
 */
import meow, {type AnyFlags} from 'meow';
import type {FlagDef} from './flags.js';

export class UsageError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'UsageError';
	}
}

export type Parsed = {
	/** The words that are not flags. */
	operands: string[];
	flags: Record<string, string | boolean | string[] | undefined>;
	help: boolean;
	version: boolean;
};

const kebab = (name: string): string => name.replace(/[A-Z]/g, c => `-${c.toLowerCase()}`);

type MeowFlag = {type: 'string' | 'boolean'; shortFlag?: string; isMultiple?: boolean; default?: boolean};

function meowFlags(flags: Readonly<Record<string, FlagDef>>): AnyFlags {
	const out: Record<string, MeowFlag> = {
		help: {type: 'boolean', shortFlag: 'h'},
		version: {type: 'boolean'},
	};
	for (const [name, def] of Object.entries(flags)) {
		out[name] =
			def.type === 'boolean'
				? {type: 'boolean', ...(def.default === undefined ? {} : {default: def.default})}
				: {type: 'string', ...(def.short ? {shortFlag: def.short} : {}), ...(def.multiple ? {isMultiple: true} : {})};
	}

	return out as AnyFlags;
}

/** Thrown in place of meow's process.exit while it parses. */
class MeowExit extends Error {}

/** Runs meow with its own reporting captured: what it would print and exit on becomes a UsageError. */
function meowQuietly(argv: readonly string[], flags: AnyFlags, command: string) {
	const said: string[] = [];
	const {exit} = process;
	const title = Object.getOwnPropertyDescriptor(process, 'title');
	Object.defineProperty(process, 'title', {
		configurable: true,
		enumerable: true,
		get: () => title?.value as string,
		set() {
			/* shielded: see the header */
		},
	});
	const {error} = console;
	console.error = (...words: unknown[]) => {
		said.push(words.join(' '));
	};

	process.exit = ((): never => {
		throw new MeowExit();
	}) as typeof process.exit;
	try {
		return meow({
			argv: [...argv],
			importMeta: import.meta,
			pkg: {},
			flags,
			allowUnknownFlags: false,
			autoHelp: false,
			autoVersion: false,
			description: false,
		});
	} catch (caught) {
		if (caught instanceof MeowExit) {
			const unknown = said
				.join('\n')
				.split('\n')
				.map(s => s.trim())
				.filter(s => s.startsWith('-'));
			throw new UsageError(`${command} has no flag ${unknown.join(', ') || said.join(' ')}`);
		}

		const twice = caught instanceof Error ? /The flag --(\S+) can only be set once/.exec(caught.message) : null;
		if (twice) {
			throw new UsageError(`--${kebab(twice[1]!)} is given twice`);
		}

		throw caught;
	} finally {
		console.error = error;
		process.exit = exit;
		if (title) {
			Object.defineProperty(process, 'title', title);
		}
	}
}

const camel = (name: string): string => name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/**
 * What yargs-parser under meow reads too kindly: `--json=yes` (a switch takes true or false only)
 * and `--no-db` (only a switch has a negation; yargs would read it as db=false).
 */
function checkWords(argv: readonly string[], defs: Readonly<Record<string, FlagDef>>): void {
	const end = argv.indexOf('--');
	for (const word of end < 0 ? argv : argv.slice(0, end)) {
		const match = /^--([^=]+)(?:=(.*))?$/s.exec(word);
		if (!match) {
			continue;
		}

		const [, written = '', inline] = match;
		const def = defs[camel(written)];
		if (def?.type === 'boolean' && inline !== undefined && inline !== 'true' && inline !== 'false') {
			throw new UsageError(`--${written} is a switch (true or false), not ${JSON.stringify(inline)}`);
		}

		const negated = written.startsWith('no-') ? defs[camel(written.slice(3))] : undefined;
		if (!def && negated && negated.type !== 'boolean') {
			throw new UsageError(`--${written}: only a switch has a --no- form; --${written.slice(3)} takes a value`);
		}
	}
}

/** A string flag that took no value: meow reads `--db` (last, or before another flag) as ''. */
function checkValues(flags: Parsed['flags'], defs: Readonly<Record<string, FlagDef>>): void {
	for (const [name, def] of Object.entries(defs)) {
		const value = flags[name];
		if (value === undefined) {
			continue;
		}

		const values = Array.isArray(value) ? value : [value];
		if (def.type === 'string' && values.some(v => v === '' || typeof v !== 'string')) {
			throw new UsageError(`--${kebab(name)} needs a value (${def.value})`);
		}
	}
}

/** Parses one command's words (those after the command's name) against its flags. */
export function parseCommandLine(
	argv: readonly string[],
	defs: Readonly<Record<string, FlagDef>>,
	command: string,
): Parsed {
	checkWords(argv, defs);
	const result = meowQuietly(argv, meowFlags(defs), command);
	const raw = result.flags as Record<string, string | boolean | string[] | undefined>;
	const flags: Parsed['flags'] = {};
	for (const name of Object.keys(defs)) {
		const value = raw[name];
		flags[name] = Array.isArray(value) && value.length === 0 ? undefined : value;
	}

	checkValues(flags, defs);
	return {operands: result.input.map(String), flags, help: raw.help === true, version: raw.version === true};
}
