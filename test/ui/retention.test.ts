/**
 * The app must not keep old models alive. A model holds every session record and the analysis
 * built on them; the live store replaces all of them on its periodic full reload, so any closure
 * of an early render that outlives it (an effect that never re-runs, a handler Ink subscribed once)
 * keeps a second copy of the whole store in memory for the rest of the session (the 10-minute
 * follow bench saw it as a +28 MB step at the first reload).
 *
 * React runs as hfx runs it, in its production build: the development build keeps each element's
 * creation stack (`_debugStack`), and with it the scope of the render that made it. So React and
 * everything that imports it are loaded after NODE_ENV is set (no JSX in this file).
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LiveModel, LiveStore} from '../../source/live/live.js';
import {openFixtureLive} from '../helpers/fixture-live.js';
import {handedSource} from '../helpers/handed-source.js';

process.env.NODE_ENV = 'production';
const React = await import('react');
const {App} = await import('../../source/ui/app.js');
const {renderAt, settle} = await import('../helpers/render.js');
type LiveSource = import('../../source/ui/app.js').LiveSource;
type Rendered = import('../helpers/render.js').Rendered;

const NOW = 1_786_670_000;
let live: LiveStore;
let close: () => void;

beforeAll(() => {
	({live, close} = openFixtureLive('hfx-retention-'));
});
afterAll(() => close());

function collectGarbage(): void {
	v8.setFlagsFromString('--expose-gc');
	(vm.runInNewContext('gc') as () => void)();
}

/** A source that publishes a fresh copy of the store's model (as a full reload does) on demand. */
function reloadingSource(): {source: LiveSource; publish: () => LiveModel} {
	let revision = live.model.revision;
	const fresh = (): LiveModel => ({...live.model, analysis: {...live.model.analysis}, revision: ++revision});
	const {source, publish} = handedSource(fresh(), id => live.detail(id));
	return {source, publish: () => publish(fresh())};
}

/** How many of the models one app showed are still alive after three more were published. */
async function modelsLeftBehind(
	reloads: number,
	between?: (ui: Rendered) => Promise<void>,
): Promise<{alive: number; total: number}> {
	const {source, publish} = reloadingSource();
	const refs = [new WeakRef(source.model)];
	const ui = await renderAt(React.createElement(App, {live: source, color: false, now: () => NOW}), 100, 30);
	try {
		expect(ui.lastFrame()).toMatch(/hfx · READ-ONLY[\s\S]*\[1 Sessions\][\s\S]*20260814_002820_f7461a7c/);
		for (let i = 0; i < reloads; i++) {
			refs.push(new WeakRef(publish()));
			await settle();
			await between?.(ui);
		}

		// Three more models push every one of these out of React's current and alternate fibers.
		for (let i = 0; i < 3; i++) {
			publish();
			await settle();
		}

		// WeakRef targets stay alive until the job that made them ends: collect in a later one.
		await settle();
		collectGarbage();
		return {alive: refs.filter(ref => ref.deref() !== undefined).length, total: refs.length};
	} finally {
		ui.unmount();
	}
}

describe('the app and old models', () => {
	it('keeps none of the models it showed before a reload', async () => {
		expect(await modelsLeftBehind(3)).toEqual({alive: 0, total: 4});
	});

	it('keeps none after keys were handled, a pane switched and a pause toggled', async () => {
		expect(
			await modelsLeftBehind(3, async ui => {
				await ui.press('j');
				await ui.press('5');
				expect(ui.lastFrame()).toContain('[5 Findings');
				await ui.press('p');
				await ui.press('p');
				await ui.press('1');
			}),
		).toEqual({alive: 0, total: 4});
	});
});
