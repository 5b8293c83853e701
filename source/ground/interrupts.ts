/**
 * One policy for Ctrl-C, SIGTERM and SIGHUP. Outside a critical section a signal runs the exit
 * hooks (temp-file cleanup, lock release) and exits 128+N at once. Inside one (a repair or a
 * restore between its first write and its audit entry) the exit waits until the section ends, so
 * a committed write is always verified and recorded before the process goes. A command that ends
 * itself on a signal (`hfx watch`, the live view, the demo's simulated gateway) owns the signals
 * here instead of listening on `process` itself: it is told in place of the exit, and after the
 * critical section when one was running. Nothing else in source/ handles a signal.
 */
const hooks = new Set<() => void>();
let installed = false;
/** A command that ends itself cleanly on a signal (hfx watch, the live view): it is told instead of an exit. */
let owner: ((signal: NodeJS.Signals) => void) | null = null;
let depth = 0;
let pending: {signal: NodeJS.Signals; code: number} | null = null;

const CODES: Array<[NodeJS.Signals, number]> = [
	['SIGINT', 130],
	['SIGTERM', 143],
	['SIGHUP', 129],
];

function runHooks(): void {
	for (const hook of [...hooks]) {
		try {
			hook();
		} catch {
			// best effort on the way out
		}
	}
}

function install(): void {
	if (installed) {
		return;
	}

	installed = true;
	process.once('exit', runHooks);
	for (const [signal, code] of CODES) {
		process.on(signal, () => {
			if (depth > 0) {
				pending ??= {signal, code};
				process.stderr.write(`\nhfx: ${signal} received: finishing the write in progress and recording it first\n`);
				return;
			}

			if (owner) {
				owner(signal);
				return;
			}

			runHooks();
			process.exit(code);
		});
	}
}

/** Runs on exit and on signals; returns the remover. */
export function onInterruptOrExit(hook: () => void): () => void {
	install();
	hooks.add(hook);
	return () => hooks.delete(hook);
}

/**
 * For a command that stops cleanly on SIGINT/SIGTERM/SIGHUP by itself (a follower ending its loop,
 * exit 0): while it owns the signals, one arriving outside a critical section is handed to it, and
 * the exit hooks (temp clean-up) still run when the process exits. Returns the release.
 */
export function ownSignals(handler: (signal: NodeJS.Signals) => void): () => void {
	install();
	owner = handler;
	return () => {
		if (owner === handler) {
			owner = null;
		}
	};
}

/** True once a signal arrived inside a critical section (check it before starting to write). */
export function interruptRequested(): boolean {
	return pending !== null;
}

/**
 * Defers signal exits until `fn` settles. A signal that arrived meanwhile is not acted on here:
 * the command finishes, prints what happened, and exits as it ended (a write that finished is not
 * reported as interrupted); the entry point notes the signal (`deferredSignal`).
 */
export async function critical<T>(fn: () => Promise<T>): Promise<T> {
	install();
	depth++;
	try {
		return await fn();
	} finally {
		// A signal that came in during synchronous work is queued: let it be seen while still inside.
		await new Promise(resolve => setImmediate(resolve));
		await new Promise(resolve => setImmediate(resolve));
		depth--;
		if (depth === 0 && pending) {
			deferred = pending.signal;
			// From now on, a further signal exits at once; the one received is honoured at the end.
			pending = null;
			// A command that owns the signals (the live view) is told now that the write is recorded.
			owner?.(deferred);
		}
	}
}

let deferred: NodeJS.Signals | null = null;

/** The signal received during a critical section that finished, if any (noted, not turned into 128+N). */
export function deferredSignal(): NodeJS.Signals | null {
	return deferred;
}
