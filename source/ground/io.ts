/**
 * Where a command's output goes and the flags every command shares: the one interface the
 * commands and the TUI host both take (the ground floor, so neither imports the other for it).
 *
 * The terminal sinks: every line hfx prints outside the TUI passes `out` or `err`, which make it
 * one safe line (text/sanitize.ts: a title's ESC or newline is shown escaped, never acted on), and
 * every JSON document passes `json`, which keeps the strings exact. Nothing else writes a
 * command's output (test/build/terminal-sinks.test.ts).
 */
import {jsonChunks} from '../text/json-chunks.js';
import {safeText} from '../text/sanitize.js';

export type GlobalFlags = {
	db?: string;
	home?: string;
	profile?: string;
	/** --routing-scope: judge a copied store as the gateway of that sessions folder. */
	routingScope?: string;
	json: boolean;
	maxGapSeconds: number;
	color: boolean;
	/** --ask-hermes: run `hermes --version` when no running gateway states its build (scan, routing). */
	askHermes?: boolean;
};

export type Io = {
	/** One line on stdout, made safe (a newline in it is shown as \n: give lines one by one). */
	out: (line: string) => void;
	/** One line on stderr, made safe. */
	err: (line: string) => void;
	/**
	 * A JSON document on stdout, two-space indented: parses back to the exact strings. It may hold `thenFields`
	 * objects whose rest is made as it is written (text/json-chunks.ts): write it with jsonChunks, never
	 * JSON.stringify (which would leave that rest out).
	 */
	json: (value: unknown) => void;
	/** Seconds since the epoch; injectable so output is reproducible in tests. */
	now: () => number;
	env: NodeJS.ProcessEnv;
};

/** About this many characters go to stdout at once. */
const PIECE = 64 * 1024;

/**
 * A JSON document on stdout as it is made (text/json-chunks.ts: the same bytes as the whole
 * `safeJson(value, 2)`), in pieces of about 64 KB, so the whole document is never one string
 * (issue #26), and what is made is sent before a part that waits on a computation is made (the head of `hfx scan
 * --json` while the analysis runs). stdout to a pipe or a file is synchronous on Linux: each write is done, or
 * refused, before the next piece is made, so there is no drain to wait for. A closed pipe
 * (`hfx scan --json | head -c 100`) destroys stdout: nothing more is made, and its EPIPE ends hfx
 * quietly (cli/main.tsx).
 */
function writeJson(value: unknown): void {
	const chunks = jsonChunks(value);
	let piece = '';
	let done = false;
	while (!done) {
		const next = chunks.next();
		done = next.done === true;
		piece += next.done === true ? '\n' : next.value;
		// An empty piece: what follows waits on a computation (text/json-chunks.ts thenFields), so send what is made.
		const flush = next.value === '' && piece.length > 0;
		if (done || flush || piece.length >= PIECE) {
			if (process.stdout.destroyed) {
				return;
			}

			process.stdout.write(piece);
			piece = '';
		}
	}
}

export const processIo: Io = {
	out: line => process.stdout.write(`${safeText(line)}\n`),
	err: line => process.stderr.write(`${safeText(line)}\n`),
	json: value => {
		writeJson(value);
	},
	now: () => Date.now() / 1000,
	env: process.env,
};
