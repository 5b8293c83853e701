/**
 * Renders an Ink tree at a fixed terminal size, with input, resize and the latest frame.
 * ink-testing-library has a fixed 100-column stdout without rows or resize, so this uses Ink's
 * own render() with a small fake TTY, as Ink's and Shopify's test helpers do.
 */
import {EventEmitter} from 'node:events';
import type React from 'react';
import {render} from 'ink';

class FakeStdout extends EventEmitter {
	columns: number;
	rows: number;
	isTTY = true;
	frames: string[] = [];
	constructor(columns: number, rows: number) {
		super();
		this.columns = columns;
		this.rows = rows;
	}

	write = (chunk: string): boolean => {
		// OSC 52 and other control-only writes are not frames.
		if (!chunk.startsWith('\u001B]52') && !chunk.startsWith('\u001BPtmux')) {
			this.frames.push(chunk);
		} else {
			this.controls.push(chunk);
		}

		return true;
	};

	controls: string[] = [];
	cursorTo() {}
	moveCursor() {}
	clearLine() {}
}

class FakeStdin extends EventEmitter {
	isTTY = true;
	data: string[] = [];
	setRawMode() {}
	setEncoding() {}
	resume() {}
	pause() {}
	ref() {}
	unref() {}
	read = (): string | null => this.data.shift() ?? null;
	write(text: string): void {
		this.data.push(text);
		this.emit('readable');
	}
}

export type Rendered = {
	lastFrame: () => string;
	frames: () => string[];
	press: (text: string) => Promise<void>;
	resize: (columns: number, rows: number) => Promise<void>;
	waitFor: (predicate: (frame: string) => boolean, timeoutMs?: number) => Promise<string>;
	controls: () => string[];
	unmount: () => void;
};

/** Longer than the 20 ms Ink 8 waits before a lone ESC is the Esc key. */
const ESC_FLUSH_MS = 40;

/** Lets React 19's scheduler flush effects and input handlers (Shopify cli-kit's trick). */
export async function settle(times = 3): Promise<void> {
	for (let i = 0; i < times; i++) {
		await new Promise(resolve => setImmediate(() => setTimeout(resolve, 0)));
	}
}

export async function renderAt(tree: React.ReactElement, columns: number, rows: number): Promise<Rendered> {
	const stdout = new FakeStdout(columns, rows);
	const stdin = new FakeStdin();
	const instance = render(tree, {
		stdout: stdout as never,
		stdin: stdin as never,
		debug: true,
		exitOnCtrlC: false,
		patchConsole: false,
	});
	await settle();
	const lastFrame = () =>
		(stdout.frames.at(-1) ?? '')
			.split('\n')
			.map(l => l.trimEnd())
			.join('\n')
			.replace(/\n+$/, '');
	return {
		lastFrame,
		frames: () => stdout.frames,
		controls: () => stdout.controls,
		async press(text: string) {
			stdin.write(text);
			if (text.endsWith('\u001B')) {
				// Ink 8 holds a trailing lone ESC for 20 ms (App.js pendingInputFlushDelayMilliseconds), in case
				// the rest of an escape sequence arrives in the next chunk; only then is it the Esc key.
				await new Promise(resolve => setTimeout(resolve, ESC_FLUSH_MS));
			}

			await settle();
		},
		async resize(c: number, r: number) {
			stdout.columns = c;
			stdout.rows = r;
			stdout.emit('resize');
			await settle();
		},
		async waitFor(predicate, timeoutMs = 5000) {
			const end = Date.now() + timeoutMs;
			while (Date.now() < end) {
				if (predicate(lastFrame())) {
					return lastFrame();
				}

				await new Promise(resolve => setTimeout(resolve, 20));
			}

			throw new Error(`frame never matched; last frame:\n${lastFrame()}`);
		},
		unmount: () => instance.unmount(),
	};
}
