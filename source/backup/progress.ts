/**
 * Progress events of the long operations (backup, snapshot, verify, restore, drill), and the
 * one-line progress bar the CLI draws on stderr when it is a TTY (never otherwise). The TUI
 * subscribes to the same events.
 */
import {safeJson, safeText} from '../text/sanitize.js';

export type ProgressPhase =
	| 'copy'
	| 'check'
	| 'archive'
	| 'readback'
	| 'seal'
	| 'members'
	| 'extract'
	| 'restore'
	| 'scan';

export type ProgressEvent = {
	phase: ProgressPhase;
	/** What is being worked on (a file name, usually). */
	label: string;
	/** Bytes (or items) done and expected in this phase. */
	done: number;
	total: number;
};

export type ProgressFn = (event: ProgressEvent) => void;

export const PHASE_WORDS: Record<ProgressPhase, string> = {
	copy: 'copying',
	check: 'checking',
	archive: 'archiving',
	readback: 'reading back',
	seal: 'checking seal',
	members: 'checking members',
	extract: 'extracting',
	restore: 'restoring',
	scan: 'scanning',
};

function mib(n: number): string {
	return `${(n / 1_048_576).toFixed(n < 10 * 1_048_576 ? 1 : 0)} MiB`;
}

export type ProgressBar = {update: ProgressFn; clear: () => void};

/** A throttled bar on `stream` when it is a TTY; null otherwise (no bar for pipes, files, cron). */
export function ttyProgressBar(stream: NodeJS.WriteStream = process.stderr): ProgressBar | null {
	if (!stream.isTTY) {
		return null;
	}

	let last = 0;
	let shown = false;
	const clear = (): void => {
		if (shown) {
			stream.write('\r\u001B[2K');
			shown = false;
		}
	};

	return {
		update(e) {
			const now = Date.now();
			const finished = e.total > 0 && e.done >= e.total;
			if (now - last < 80 && !finished) {
				return;
			}

			last = now;
			const columns = Math.max(40, stream.columns ?? 80);
			const fraction = e.total > 0 ? Math.min(1, e.done / e.total) : 0;
			const text =
				` ${String(Math.round(fraction * 100)).padStart(3)}% ` +
				` ${PHASE_WORDS[e.phase]} ${safeText(e.label)} ` +
				` ${e.total > 1024 ? `${mib(e.done)}/${mib(e.total)}` : ''}`;
			const width = Math.max(10, Math.min(30, columns - text.length - 4));
			const filled = Math.round(fraction * width);
			const line = `[${'█'.repeat(filled)}${'░'.repeat(width - filled)}]${text}`;
			stream.write(`\r\u001B[2K${line.slice(0, columns - 1)}`);
			shown = true;
		},
		clear,
	};
}

/**
 * The CLI's progress output: JSON lines on stderr when HFX_PROGRESS=json (for a parent process
 * such as the TUI: `{"progress":{phase,label,done,total}}`, at most ~10 a second), a bar on a
 * TTY, nothing otherwise.
 */
export function progressSink(
	stream: NodeJS.WriteStream = process.stderr,
	env: NodeJS.ProcessEnv = process.env,
): ProgressBar | null {
	if (env.HFX_PROGRESS === 'json') {
		let last = 0;
		return {
			update(e) {
				const now = Date.now();
				if (now - last < 100 && !(e.total > 0 && e.done >= e.total)) {
					return;
				}

				last = now;
				stream.write(`${safeJson({progress: e})}\n`);
			},
			clear() {},
		};
	}

	return ttyProgressBar(stream);
}

/** Parses one stderr line of a child run with HFX_PROGRESS=json; null when it is not progress. */
export function parseProgressLine(line: string): ProgressEvent | null {
	if (!line.startsWith('{"progress":')) {
		return null;
	}

	try {
		const e = (JSON.parse(line) as {progress: ProgressEvent}).progress;
		return typeof e.done === 'number' && typeof e.total === 'number' ? e : null;
	} catch {
		return null;
	}
}
