/**
 * Hooks that outlive renders. Each is its own function, outside the components, on purpose: V8
 * gives every closure of one render a single shared scope, so a long-lived closure created inside a
 * component (a timer, an input subscription that never re-subscribes, an effect's cleanup) keeps
 * that whole render alive, its model included: once the live store reloads, a second copy of every
 * session and of the analysis (~28 MB on the bench store). test/ui/retention.test.tsx holds the line.
 */
import {type MutableRefObject, useEffect, useRef, useState} from 'react';
import {type Key, useInput} from 'ink';
import type {Pane} from './pane-names.js';
import {FrameGate, type SourceListener, gated} from './screen/frame-gate.js';

/**
 * What a source's values go through before they are drawn: `each` sees every value as it is published, the ones the
 * gate never draws included; `ahead` may return a job a value needs before its frame (a list made whole), run in a
 * task of its own so that a key pressed meanwhile is answered first. Module-level functions: they are dependencies of
 * the subscription.
 */
export type SourceSteps<T> = {each?: (value: T) => void; ahead?: (value: T) => (() => void) | null};

/** The latest value a source publishes (its current one first), through the screen's frame gate when given one. */
export function useSource<T>(
	source: {model: T | null; subscribe: (l: SourceListener<T>) => () => void} | undefined,
	gate?: FrameGate,
	steps?: SourceSteps<T>,
): T | null {
	const [value, setValue] = useState<T | null>(source?.model ?? null);
	useEffect(() => source?.subscribe(listenerOf(setValue, gate, steps)), [source, gate, steps]);
	return value;
}

export function listenerOf<T>(set: (value: T) => void, gate?: FrameGate, steps?: SourceSteps<T>): SourceListener<T> {
	const next: SourceListener<T> = gate ? gated(gate, set) : set;
	if (!steps) {
		return next;
	}

	// A value whose job is still waiting is handed on only if none was published after it (the newest is drawn).
	let published = 0;
	return (value, atOnce) => {
		steps.each?.(value);
		const job = steps.ahead?.(value) ?? null;
		const seq = ++published;
		// A value that answers a key (another profile focused) is drawn with the key's own frame, its job first.
		if (job === null || atOnce) {
			job?.();
			next(value, atOnce);
			return;
		}

		setImmediate(() => {
			job();
			if (seq === published) {
				next(value, atOnce);
			}
		});
	};
}

/** The screen's frame gate (screen/frame-gate.ts), closed when the screen unmounts. */
export function useFrameGate(ms: number): FrameGate {
	const [gate] = useState(() => new FrameGate(ms));
	useEffect(() => closer(gate), [gate]);
	return gate;
}

function closer(gate: FrameGate): () => void {
	return () => gate.close();
}

/** The wall clock, advanced every 5 s when `tick` is set (relative times like "3m ago" move slowly). */
export function useClock(tick: boolean | undefined, now: (() => number) | undefined): number {
	const read = now ?? (() => Date.now() / 1000);
	const [clock, setClock] = useState(read);
	// biome-ignore lint/correctness/useExhaustiveDependencies: `read` is derived from `now`: the whole list
	useEffect(() => {
		if (!tick) {
			return;
		}

		const timer = setInterval(() => setClock(read()), 5000);
		return () => clearInterval(timer);
	}, [tick, now]);
	return clock;
}

/**
 * Pins a keyed list's selection to the row on screen: once a row is shown selected it stays
 * selected through re-sorts (and a row that left the list hands the selection to the one shown).
 */
export function usePin(
	dispatch: (action: {type: 'pin'; pane: Pane; id: string; cursor: number}) => void,
	pane: Pane,
	anchor: string | null,
	shown: string | null,
	cursor: number,
): void {
	useEffect(() => {
		if (shown !== null && shown !== anchor) {
			dispatch({type: 'pin', pane, id: shown, cursor});
		}
	}, [dispatch, pane, anchor, shown, cursor]);
}

/** A fading notice clears itself after `ms` (a newer notice restarts the wait; an older timer never clears it). */
export function useFadingNotice(
	dispatch: (action: {type: 'notice-faded'; text: string}) => void,
	notice: string | null,
	fades: boolean,
	ms: number,
): void {
	useEffect(() => {
		if (notice === null || !fades) {
			return;
		}

		const timer = setTimeout(() => dispatch({type: 'notice-faded', text: notice}), ms);
		return () => clearTimeout(timer);
	}, [dispatch, notice, fades, ms]);
}

export type InputHandler = (input: string, key: Key) => void;

/**
 * Ink's useInput with a handler that may change every render. Ink subscribes once, to a forwarder
 * that only knows a ref: the first render's handler (and the model its scope holds) is not kept by
 * Ink's effects, and keys no longer re-subscribe a listener on every render.
 */
export function useLatestInput(handler: InputHandler, options: {isActive?: boolean} = {}): void {
	const latest = useRef(handler);
	latest.current = handler;
	const [forward] = useState(() => forwarder(latest));
	useInput(forward, options);
}

function forwarder(latest: MutableRefObject<InputHandler>): InputHandler {
	return (input, key) => {
		latest.current(input, key);
	};
}
