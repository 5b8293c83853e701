/**
 * Fail-closed errors. Every refusal names the file, the cause and the next safe step, so the
 * operator reading one line over SSH knows what happened and what to do without guessing.
 */

import {safeText} from './text/sanitize.js';

export type ExitCode = 0 | 1 | 2;

export type Refusal = {file: string; reason: string; next: string};

/** The one line every refusal prints on stderr: the file, the cause and the next safe step (one line whatever they hold). */
export function refusalLine(r: Refusal): string {
	return safeText(`hfx: ${r.file}: ${r.reason}. Next: ${r.next}`);
}

export class FailClosed extends Error {
	readonly file: string;
	readonly reason: string;
	readonly next: string;
	readonly exitCode: ExitCode;
	/** A short machine-readable tag, e.g. "zero-byte-main-file", for --json output and tests. */
	readonly kind: string;

	constructor(options: {file: string; kind: string; reason: string; next: string; exitCode?: ExitCode; cause?: unknown}) {
		super(`${options.file}: ${options.reason}. Next: ${options.next}`, {cause: options.cause});
		this.name = 'FailClosed';
		this.file = options.file;
		this.kind = options.kind;
		this.reason = options.reason;
		this.next = options.next;
		this.exitCode = options.exitCode ?? 2;
	}

	/** The one line printed on stderr. */
	line(): string {
		return refusalLine(this);
	}

	toJSON(): Record<string, unknown> {
		return {error: this.kind, file: this.file, reason: this.reason, next: this.next};
	}
}

export function isFailClosed(error: unknown): error is FailClosed {
	return error instanceof FailClosed;
}

/**
 * The one way a caught refusal ends a command: its one line on stderr, its exit code. Anything
 * that is not a FailClosed is rethrown (an internal error, reported as such by the entry point).
 */
export function refusalExit(error: unknown, err: (line: string) => void): ExitCode {
	if (!isFailClosed(error)) {
		throw error;
	}

	err(error.line());
	return error.exitCode;
}

/** Node/SQLite error code of an unknown error, if any. */
export function errorCode(error: unknown): string | undefined {
	if (error && typeof error === 'object' && 'code' in error && typeof (error as {code: unknown}).code === 'string') {
		return (error as {code: string}).code;
	}

	return undefined;
}

export function errorMessage(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
