#!/usr/bin/env node
/**
 * hfx entry point: flags, colour and TTY decisions, dispatch. Commands are loaded lazily so that
 * `hfx scan` in a cron job never loads React or Ink.
 */
import process from 'node:process';
import {UsageError, parseCommandLine, type Parsed} from './args.js';
import {type CommandSpec, type Invocation, commandNamed} from './commands.js';
import {commandHelp, globalHelp} from './help.js';
import {type ExitCode, asRefusal} from '../ground/errors.js';
import {type GlobalFlags, processIo as io} from '../ground/io.js';
import {PROFILE_NAME} from '../store/locate.js';
import {toolVersion} from '../ground/version.js';
import {sweepOwnTemps} from '../ground/temps.js';

// React's development build diffs props and checks invariants on every render: not for operators.
process.env.NODE_ENV ??= 'production';

function usage(message: string, command: string | undefined): ExitCode {
	io.err(`hfx: ${message}. See: hfx ${command ? `${command} ` : ''}--help`);
	return 2;
}

/** The command a line names (its first word), and the words after it; no command word is the TUI. */
function commandOf(argv: readonly string[]): {spec: CommandSpec; words: string[]} {
	const first = argv[0];
	if (first === undefined || first.startsWith('-')) {
		return {spec: commandNamed('')!, words: [...argv]};
	}

	const spec = commandNamed(first);
	if (!spec) {
		throw new UsageError(`unknown command ${JSON.stringify(first)}`);
	}

	return {spec, words: argv.slice(1)};
}

/** The operands a command takes, checked: none missing, none extra; a store operand becomes --db. */
function operandsOf(spec: CommandSpec, parsed: Parsed): {operands: string[]; db: string | undefined} {
	const given = parsed.operands;
	const label = spec.name || 'the TUI (hfx)';
	if (given.length > spec.operands.length) {
		const extra = given.slice(spec.operands.length);
		const misplaced = spec.name === '' && commandNamed(extra[0]!) ? `; a command goes first: hfx ${extra[0]} …` : '';
		const takes =
			spec.operands.length === 0
				? 'no operand'
				: `only ${spec.operands.map(o => (o.required ? o.name : `[${o.name}]`)).join(' ')}`;
		throw new UsageError(`${label} takes ${takes}; ${JSON.stringify(extra.join(' '))} is extra${misplaced}`);
	}

	const missing = spec.operands.find((o, i) => o.required && given[i] === undefined);
	if (missing) {
		throw new UsageError(`${label} needs ${missing.name}: hfx ${spec.usage[0]}`);
	}

	const storeAt = spec.operands.findIndex(o => o.as === 'db');
	const store = storeAt < 0 ? undefined : given[storeAt];
	if (store !== undefined && parsed.flags.db !== undefined && store !== parsed.flags.db) {
		throw new UsageError(
			`${label} was given two stores (${JSON.stringify(store)} and --db ${JSON.stringify(parsed.flags.db)}): name one`,
		);
	}

	return {operands: given, db: store ?? (parsed.flags.db as string | undefined)};
}

/** The store and output flags every command shares, checked. */
function globalFlags(flags: Parsed['flags'], db: string | undefined): GlobalFlags {
	const gap = flags.maxGapSeconds === undefined ? 900 : Number(flags.maxGapSeconds);
	if (!Number.isFinite(gap) || gap < 0) {
		throw new UsageError(
			`--max-gap-seconds must be a non-negative number of seconds, not ${JSON.stringify(flags.maxGapSeconds)}`,
		);
	}

	// A profile is a name, never a path: `--profile ../../etc` would make a home outside the root.
	const profile = flags.profile as string | undefined;
	if (profile !== undefined && !PROFILE_NAME.test(profile)) {
		throw new UsageError(
			`--profile takes a profile name (lowercase letters, digits, - and _), not ${JSON.stringify(profile)}`,
		);
	}

	// Ink 6.8's chalk (5.6, its bundled supports-color) ignores NO_COLOR but honours FORCE_COLOR=0:
	// colour is decided here, before any command (and so chalk) is imported.
	const color = flags.color !== false && !process.env.NO_COLOR;
	if (!color) {
		process.env.FORCE_COLOR = '0';
	}

	return {
		db,
		home: flags.home as string | undefined,
		profile,
		routingScope: flags.routingScope as string | undefined,
		json: flags.json === true,
		maxGapSeconds: gap,
		color,
	};
}

/** `hfx help [CMD]`. */
function helpPage(words: readonly string[]): ExitCode {
	const spec = words[0] === undefined ? undefined : commandNamed(words[0]);
	if (words[0] !== undefined && (!spec || words.length > 1)) {
		throw new UsageError(`help takes one command name, not ${JSON.stringify(words.join(' '))}`);
	}

	process.stdout.write(`${spec?.name ? commandHelp(spec) : globalHelp()}\n`);
	return 0;
}

async function run(argv: string[]): Promise<ExitCode> {
	if (argv[0] === 'help') {
		return helpPage(argv.slice(1));
	}

	const {spec, words} = commandOf(argv);
	const parsed = parseCommandLine(words, spec.flags, spec.name || 'the TUI (hfx)');
	if (parsed.help || parsed.version) {
		process.stdout.write(
			`${parsed.version && !parsed.help ? toolVersion() : spec.name ? commandHelp(spec) : globalHelp()}\n`,
		);
		return 0;
	}

	const {operands, db} = operandsOf(spec, parsed);
	const invocation: Invocation = {flags: parsed.flags, operands, global: globalFlags(parsed.flags, db), argv};
	// One clean-up policy (source/ground/temps.ts): what a SIGKILLed run of any command left in the temp
	// folder under our own names (its pid dead) is removed before this one starts.
	sweepOwnTemps();
	return spec.run(invocation);
}

export async function main(argv: string[]): Promise<ExitCode> {
	try {
		return await run(argv);
	} catch (error) {
		if (error instanceof UsageError) {
			const first = argv[0];
			return usage(error.message, first && !first.startsWith('-') && commandNamed(first) ? first : undefined);
		}

		throw error;
	}
}

/**
 * How a command that failed ends: a refusal or a file error of the OS as its one line, anything else as an internal
 * error.
 */
function reportFailure(error: unknown): void {
	const refusal = asRefusal(error);
	if (refusal) {
		io.err(refusal.line());
		process.exitCode = refusal.exitCode;
		return;
	}

	// A stack is several lines; each is made safe (a message can quote a file name).
	const report = `hfx: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
	for (const line of report.split('\n')) {
		io.err(line);
	}

	// The bundled bin's identifiers are minified; its source map names them again.
	const mapped = (process as {sourceMapsEnabled?: boolean}).sourceMapsEnabled === true;
	if (import.meta.url.endsWith('/hfx-bundle.js') && !mapped) {
		process.stderr.write(
			'hfx: for a trace with file and function names, run the same command with NODE_OPTIONS=--enable-source-maps\n',
		);
	}

	process.exitCode = 2;
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
	// With no file descriptor left (EMFILE) the import cannot load its file: the command's own line was said, its exit
	// stands.
	const signal = await import('../ground/interrupts.js').then(
		m => m.deferredSignal(),
		() => null,
	);
	if (signal !== null) {
		// Interrupted during a write: it was finished, verified and recorded. The exit says how it
		// ended (an applied repair exits as applied, never 128+N), the signal noted in one line.
		process.stderr.write(
			`hfx: ${signal} was received during the write; it finished and was ` +
				`recorded, so hfx exits as the command ended (exit ${code})\n`,
		);
	}

	process.exitCode = code;
	// Once nothing is left to run, exit at once rather than through Node's teardown of the environment, which frees
	// the heap piece by piece: `hfx scan --json` of the 1M-message bench store (~170 MB peak RSS, read in place) took
	// 431-586 ms (median 514) from its last byte to its exit, 124-285 ms (median 152) exiting here (5 interleaved
	// rounds against the build before, a machine at load 14 on 2 cores; peak RSS and output unchanged). 'beforeExit'
	// comes only with the event loop empty (no write, timer or child pending); process.exit still runs the 'exit'
	// handlers and writes the compile cache (checked: a fresh NODE_COMPILE_CACHE folder is filled the same).
	process.once('beforeExit', () => {
		process.exit();
	});
}, reportFailure);

// An error thrown outside the command's promise (a stream's 'error', a timer) ends the same way:
// one line for a refusal or a file error, its exit code (2 for anything else), never Node's default
// trace and exit 1 (which would read as "findings").
process.on('uncaughtException', error => {
	reportFailure(error);
	process.exit();
});
