/**
 * Work done in steps (issue #26: never block a keypress on analysis): a generator that yields between its parts, so a
 * caller on the event loop (the live view's first read and analysis) may answer keys between them, and a caller that
 * has nothing to wait for runs it to its end in one go with `drain`.
 */

/** A computation of a T in steps: each `yield` is a point where the caller may let other work run. */
export type Steps<T> = Generator<void, T>;

/** Runs a stepped computation to its end in one go (no step waits for anything). */
export function drain<T>(steps: Steps<T>): T {
	for (;;) {
		const step = steps.next();
		if (step.done) {
			return step.value;
		}
	}
}
