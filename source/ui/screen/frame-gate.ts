/**
 * How often the screen is drawn (issue #26: the render cost per refresh). The live sources (the store, every profile's
 * on a root, the files probe, the backups) may cause at most one frame every `FRAME_MS`: a value published sooner
 * waits for the rest of the interval, and then only the newest value of each source is drawn, in one frame. A
 * keypress never waits: it does not pass through the gate, and Ink's own throttle (which held any frame drawn within
 * 50 ms of the last one back, a key's included) is set to its minimum.
 */

/** At most 20 frames a second from the live sources, as Ink's `maxFps: 20` allowed before. */
export const FRAME_MS = 50;

/** Ink's frame throttle at its floor (1 ms): every frame React commits is drawn at once, a keypress's included. */
export const INK_MAX_FPS = 1000;

/**
 * How a source publishes: its newest value, and `atOnce` when the change answers a key (drawn at once, as the key is,
 * with whatever else waits at the gate).
 */
export type SourceListener<T> = (value: T, atOnce?: boolean) => void;

type Timers = {
	now: () => number;
	setTimeout: (run: () => void, ms: number) => unknown;
	clearTimeout: (timer: unknown) => void;
};

const REAL_TIMERS: Timers = {
	now: () => performance.now(),
	setTimeout: (run, ms) => setTimeout(run, ms),
	clearTimeout: timer => clearTimeout(timer as NodeJS.Timeout),
};

/** Lets the sources' updates through at most once every `ms`; `ms` 0 lets each through at once. */
export class FrameGate {
	private last = Number.NEGATIVE_INFINITY;
	private timer: unknown;
	private readonly waiting = new Set<() => void>();

	constructor(
		private readonly ms: number,
		private readonly timers: Timers = REAL_TIMERS,
	) {}

	/** Runs `flush` now, or once `ms` have passed since the last flush, with every other flush waiting then. */
	request(flush: () => void): void {
		this.waiting.add(flush);
		if (this.timer !== undefined) {
			return;
		}

		const wait = this.last + this.ms - this.timers.now();
		if (wait <= 0) {
			this.open();
		} else {
			this.timer = this.timers.setTimeout(() => this.open(), wait);
		}
	}

	/**
	 * Runs `flush` now, with every flush waiting, in one frame: an update that answers a key (another profile focused)
	 * is drawn with the key's own frame, never a frame of the old store's model over the new one's detail.
	 */
	now(flush: () => void): void {
		this.waiting.add(flush);
		if (this.timer !== undefined) {
			this.timers.clearTimeout(this.timer);
		}

		this.open();
	}

	close(): void {
		if (this.timer !== undefined) {
			this.timers.clearTimeout(this.timer);
			this.timer = undefined;
		}

		this.waiting.clear();
	}

	private open(): void {
		this.timer = undefined;
		this.last = this.timers.now();
		const flushes = [...this.waiting];
		this.waiting.clear();
		for (const flush of flushes) {
			flush();
		}
	}
}

/**
 * A source's listener that hands the newest value to `set` through the gate; a value published `atOnce` (it answers a
 * key) opens the gate.
 */
export function gated<T>(gate: FrameGate, set: (value: T) => void): SourceListener<T> {
	let newest: T;
	const flush = () => set(newest);
	return (value, atOnce) => {
		newest = value;
		if (atOnce) {
			gate.now(flush);
		} else {
			gate.request(flush);
		}
	};
}
