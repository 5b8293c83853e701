/**
 * Terminal plumbing: size that follows resizes, the alternate screen, and OSC 52 clipboard writes.
 * (Ink 8's own useWindowSize falls back to the terminal-size package, which runs `tput`/`stty` in a
 * child process when stdout has no size: a test stream or a pipe. Reading the stream alone never does.)
 */
import {useEffect, useState} from 'react';
import {useStdout} from 'ink';

export type Size = {columns: number; rows: number};

export const MIN_COLUMNS = 60;
export const MIN_ROWS = 15;

/** Ink re-lays out on resize but does not re-render components that read stdout.columns once. */
export function useTerminalSize(): Size {
	const stdout = useStdout().stdout as NodeJS.WriteStream;
	const read = (): Size => ({columns: stdout.columns || 80, rows: stdout.rows || 24});
	const [size, setSize] = useState<Size>(read);
	// biome-ignore lint/correctness/useExhaustiveDependencies: `read` only reads `stdout`, the whole list
	useEffect(() => {
		const onResize = () => setSize(read());
		stdout.on('resize', onResize);
		return () => {
			stdout.off('resize', onResize);
		};
	}, [stdout]);
	return size;
}

export const ENTER_ALT_SCREEN = '\u001B[?1049h\u001B[H';
export const LEAVE_ALT_SCREEN = '\u001B[?1049l';
export const SHOW_CURSOR = '\u001B[?25h';

/** OSC 52: ask the terminal to put text on the clipboard (works over SSH where supported; tmux needs set-clipboard). */
export function osc52(text: string): string {
	const payload = Buffer.from(text, 'utf8').toString('base64');
	const seq = `\u001B]52;c;${payload}\u0007`;
	return process.env.TMUX ? `\u001BPtmux;\u001B${seq}\u001B\\` : seq;
}
