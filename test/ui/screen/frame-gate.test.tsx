/**
 * The screen's frame gate (issue #26): the live sources cause at most one frame per interval, the newest value of each
 * drawn then; a keypress is drawn at once.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {App, type LiveSource} from '../../../source/ui/app.js';
import type {LiveModel, LiveStore} from '../../../source/live/live.js';
import {FrameGate, gated} from '../../../source/ui/screen/frame-gate.js';
import {openFixtureLive} from '../../helpers/fixture-live.js';
import {renderAt, settle} from '../../helpers/render.js';
import {analyzeIncremental} from '../../../source/forensics/analysis/incremental.js';
import {sessionRows} from '../../../source/ui/views.js';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {T0, session, snapshot as snapshotOf} from '../../helpers/records.js';
import {handedSource} from '../../helpers/handed-source.js';

/** Timers the test moves by hand. */
function handTimers() {
	let now = 0;
	let due: Array<{at: number; run: () => void}> = [];
	return {
		timers: {
			now: () => now,
			setTimeout(run: () => void, ms: number) {
				const timer = {at: now + ms, run};
				due.push(timer);
				return timer;
			},
			clearTimeout(timer: unknown) {
				due = due.filter(t => t !== timer);
			},
		},
		advance(ms: number) {
			now += ms;
			const ready = due.filter(t => t.at <= now);
			due = due.filter(t => t.at > now);
			for (const t of ready) {
				t.run();
			}
		},
		pending: () => due.length,
	};
}

describe('FrameGate', () => {
	it('lets the first value through at once, then the newest of the interval once it has passed', () => {
		const clock = handTimers();
		const gate = new FrameGate(50, clock.timers);
		const drawn: number[] = [];
		const listener = gated<number>(gate, value => drawn.push(value));
		for (let value = 1; value <= 10; value++) {
			listener(value);
			clock.advance(3);
		}

		expect(drawn).toEqual([1]);
		clock.advance(50);
		expect(drawn).toEqual([1, 10]);
		// Quiet longer than the interval: the next value goes through at once again.
		clock.advance(100);
		listener(11);
		expect(drawn).toEqual([1, 10, 11]);
	});

	it('draws every source that published in the interval in the same flush', () => {
		const clock = handTimers();
		const gate = new FrameGate(50, clock.timers);
		const drawn: string[] = [];
		const store = gated<string>(gate, value => drawn.push(`store ${value}`));
		const files = gated<string>(gate, value => drawn.push(`files ${value}`));
		store('a');
		store('b');
		files('x');
		store('c');
		expect(drawn).toEqual(['store a']);
		clock.advance(50);
		expect(drawn).toEqual(['store a', 'store c', 'files x']);
	});

	it('draws a value published at once (it answers a key) now, with every value waiting, and cancels the wait', () => {
		const clock = handTimers();
		const gate = new FrameGate(50, clock.timers);
		const drawn: string[] = [];
		const home = gated<string>(gate, value => drawn.push(`home ${value}`));
		const store = gated<string>(gate, value => drawn.push(`store ${value}`));
		store('a');
		store('b');
		expect(drawn).toEqual(['store a']);
		home('work', true);
		expect(drawn).toEqual(['store a', 'store b', 'home work']);
		expect(clock.pending()).toBe(0);
		// The interval starts again from that frame.
		store('c');
		expect(drawn).toHaveLength(3);
		clock.advance(50);
		expect(drawn).toEqual(['store a', 'store b', 'home work', 'store c']);
	});

	it('lets every value through at once with an interval of 0, and drops what waits when closed', () => {
		const clock = handTimers();
		const open = new FrameGate(0, clock.timers);
		const drawn: number[] = [];
		const listener = gated<number>(open, value => drawn.push(value));
		listener(1);
		listener(2);
		expect(drawn).toEqual([1, 2]);

		const gate = new FrameGate(50, clock.timers);
		const held = gated<number>(gate, value => drawn.push(value));
		held(3);
		held(4);
		gate.close();
		expect(clock.pending()).toBe(0);
		clock.advance(100);
		expect(drawn).toEqual([1, 2, 3]);
	});
});

let live: LiveStore;
let close: () => void;
beforeAll(() => {
	({live, close} = openFixtureLive('hfx-frame-gate-'));
});
afterAll(() => close());

/** A source that publishes a fresh copy of the store's model on demand (each one a new frame when drawn). */
function publishingSource(start: LiveModel = live.model): {
	source: LiveSource;
	publish: (next?: (model: LiveModel) => LiveModel) => void;
} {
	const {source, publish} = handedSource(start, id => live.detail(id));
	return {
		source,
		publish(next: (model: LiveModel) => LiveModel = () => live.model) {
			publish({...next(source.model), revision: source.model.revision + 1});
		},
	};
}

describe('the screen behind its frame gate', () => {
	it('draws a burst of models in two frames, and a keypress in the middle of it at once', async () => {
		const {source, publish} = publishingSource();
		// An interval no burst of five publishes outlasts, even on a loaded machine.
		const ui = await renderAt(<App live={source} color={false} now={() => 1_786_670_000} frameMs={1500} />, 100, 30);
		try {
			const first = ui.frames().length;
			for (let i = 0; i < 5; i++) {
				publish();
				await settle();
			}

			// The first model drawn at once; the other four wait for the interval's end.
			expect(ui.frames().length).toBe(first + 1);
			await ui.press('j');
			expect(ui.frames().length).toBe(first + 2);
			// Then the newest of the four, in one frame.
			const deadline = Date.now() + 5000;
			while (ui.frames().length < first + 3 && Date.now() < deadline) {
				await new Promise(resolve => setTimeout(resolve, 20));
			}

			await settle();
			expect(ui.frames().length).toBe(first + 3);
		} finally {
			ui.unmount();
		}
	});

	it('keeps the sessions list of every model it holds back, so the one drawn is patched, not made anew', async () => {
		const sessions = Array.from({length: 40}, (_, i) => session({id: `s${i}`, newestMessageAt: T0 + i}));
		const snapshot = snapshotOf(sessions);
		const {source, publish} = publishingSource({...live.model, analysis: analyze(snapshot)});
		// Each model's analysis derived from the last one's (one session changed), as the live store's refreshes are.
		const derive = (model: LiveModel): LiveModel => ({
			...model,
			analysis: analyzeIncremental(model.analysis, snapshot, new Set(['s0'])),
		});
		const options = {filterText: '', showHidden: false, source: null};
		const ui = await renderAt(<App live={source} color={false} now={() => 1_786_670_000} frameMs={1500} />, 140, 30);
		try {
			const listed = sessionRows(source.model.analysis, options).rows;
			const first = ui.frames().length;
			// The first drawn at once, the next two held back: only the third is drawn, at the interval's end.
			for (let i = 0; i < 3; i++) {
				publish(derive);
				await settle();
			}

			const deadline = Date.now() + 5000;
			while (ui.frames().length < first + 2 && Date.now() < deadline) {
				await new Promise(resolve => setTimeout(resolve, 20));
			}

			await settle();
			expect(ui.frames().length).toBe(first + 2);
			// The list the screen made for the first model, patched through the model never drawn.
			expect(sessionRows(source.model.analysis, options).rows).toBe(listed);
		} finally {
			ui.unmount();
		}
	});
});
