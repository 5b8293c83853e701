/**
 * Keys and habits, driven through the real keymap on the real fixture: navigation, filter with a
 * live count, help that filters, Esc backing out one level, pause with a waiting count, yank,
 * resize and the too-small screen.
 */
import type React from 'react';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {App, type LiveSource} from '../../source/ui/app.js';
import type {LiveModel, LiveStore} from '../../source/live/live.js';
import {BINDINGS} from '../../source/ui/keymap.js';
import type {KeyEvent} from '../../source/ui/keys/key-event.js';
import {footerHints, helpRows, repairBinding, screenBinding} from '../../source/ui/keys/lookup.js';
import {PANES, type Pane} from '../../source/ui/pane-names.js';
import {renderAt} from '../helpers/render.js';
import {openFixtureLive} from '../helpers/fixture-live.js';

const NOW = 1_786_670_000;
let live: LiveStore;
let close: () => void;

beforeAll(() => {
	({live, close} = openFixtureLive('hfx-keys-'));
});
afterAll(() => close());

const app = (props: Partial<React.ComponentProps<typeof App>> = {}) => (
	<App live={live} color={false} now={() => NOW} {...props} />
);
const DOWN = '\u001B[B';
const ESC = '\u001B';

const resolve = (key: KeyEvent, pane: Pane, overlay?: 'help' | 'filter') => screenBinding(key, {pane, overlay})?.id;
const hints = (pane: Pane) => footerHints({pane}).map(h => h.text);

describe('the keymap table', () => {
	it('drives handlers, footer hints and help from the same bindings', () => {
		expect(resolve({input: 'j'}, 'sessions')).toBe('down');
		expect(resolve({input: '', downArrow: true}, 'sessions')).toBe('down');
		expect(resolve({input: 'd', ctrl: true}, 'sessions')).toBe('page-down');
		expect(resolve({input: 'c', ctrl: true}, 'files')).toBe('quit');
		expect(resolve({input: '', tab: true, shift: true}, 'files')).toBe('prev-pane');
		expect(resolve({input: '3'}, 'files')).toBe('pane-3');
		expect(resolve({input: 't'}, 'files')).toBeUndefined();
		expect(hints('sessions')).toContain('t tool rows');
		expect(hints('findings')).toContain('r repair');
		for (const b of BINDINGS) {
			const row = b.help === false ? undefined : (b.help ?? b);
			if (row) {
				expect(
					helpRows('').some(r => r.label === row.label && r.description === row.description),
					b.id,
				).toBe(true);
			}
		}

		expect(helpRows('').find(r => r.label === '1-8')?.description).toBe(
			'jump to a pane: 1 Sessions, 2 Detail, 3 Lineage, 4 Routing, 5 Findings, 6 Files, 7 Activity, 8 Backups',
		);
		expect(helpRows('pause').map(r => r.label)).toEqual(['p']);
	});

	it(
		'switches panes with h/l and ←/→ as with Tab, and steps through filter ' +
			'matches with n/N in the filterable lists',
		() => {
			expect(resolve({input: 'l'}, 'sessions')).toBe('next-pane');
			expect(resolve({input: '', rightArrow: true}, 'detail')).toBe('next-pane');
			expect(resolve({input: 'h'}, 'files')).toBe('prev-pane');
			expect(resolve({input: '', leftArrow: true}, 'backups')).toBe('prev-pane');
			expect(resolve({input: 'l', ctrl: true}, 'sessions')).toBe('refresh');
			expect(resolve({input: 'l'}, 'sessions', 'help')).toBe('help-type');
			for (const pane of ['sessions', 'routing', 'findings', 'activity'] as const) {
				expect(resolve({input: 'n'}, pane)).toBe('next-match');
				expect(resolve({input: 'N'}, pane)).toBe('prev-match');
			}

			expect(resolve({input: 'n'}, 'files')).toBeUndefined();
			expect(footerHints({pane: 'sessions'}, undefined, {paused: true}).map(h => h.text)).toContain('p resume');
			expect(footerHints({pane: 'sessions'}, undefined, {paused: false}).map(h => h.text)).toContain('p pause');
		},
	);

	it('gives every binding a handler, and no key two bindings in one scope', () => {
		for (const b of BINDINGS) {
			expect(typeof b.run, b.id).toBe('function');
		}

		expect(new Set(BINDINGS.map(b => b.id)).size).toBe(BINDINGS.length);
		const scopes = [
			...PANES.map(pane => ({pane, overlay: undefined})),
			...(['help', 'filter', 'repair', 'confirm'] as const).map(overlay => ({pane: 'findings' as const, overlay})),
		];
		for (const {pane, overlay} of scopes) {
			const specs = BINDINGS.filter(b =>
				overlay ? b.overlay === overlay : !b.overlay && (!b.panes || b.panes.includes(pane)),
			).flatMap(b => b.keys.map(k => JSON.stringify(k)));
			expect(new Set(specs).size, `${pane} ${overlay ?? ''}`).toBe(specs.length);
		}
	});

	it(
		'declares the overlay keys in the table: help typing, the filter line, ' +
			'the repair preview and its confirmation',
		() => {
			expect(resolve({input: 'x'}, 'sessions', 'help')).toBe('help-type');
			expect(resolve({input: '?'}, 'sessions', 'help')).toBe('help-toggle');
			expect(resolve({input: '', backspace: true}, 'sessions', 'help')).toBe('help-erase');
			expect(resolve({input: 'c', ctrl: true}, 'sessions', 'help')).toBe('help-quit');
			// The help scrolls (issue #28 point 6): C-d, PgDn, the arrows, Home and End.
			expect(resolve({input: 'd', ctrl: true}, 'sessions', 'help')).toBe('help-page-down');
			expect(resolve({input: '', downArrow: true}, 'sessions', 'help')).toBe('help-down');
			expect(resolve({input: '', end: true}, 'sessions', 'help')).toBe('help-bottom');
			expect(resolve({input: '', escape: true}, 'sessions', 'filter')).toBe('filter-clear');
			expect(resolve({input: 'j'}, 'sessions', 'filter')).toBeUndefined();
			expect(repairBinding({input: 'a'}, 'repair')?.id).toBe('repair-apply');
			// In the confirmation, a letter is part of the answer (the table's confirm-type), not the apply key.
			expect(repairBinding({input: 'a'}, 'confirm')?.id).toBe('confirm-type');
			expect(repairBinding({input: '\r', return: true}, 'confirm')?.id).toBe('confirm-submit');
			expect(repairBinding({input: '', backspace: true}, 'confirm')?.id).toBe('confirm-erase');
			expect(repairBinding({input: '', escape: true}, 'confirm')?.id).toBe('confirm-cancel');
		},
	);

	it('pins help and quit to the footer by a flag, and marks a disabled binding only with a live context', () => {
		expect(
			footerHints({pane: 'sessions'})
				.filter(h => h.pinned)
				.map(h => h.text),
		).toEqual(['? help', 'q quit']);
		const context = (ready: boolean, applied = false) => ({
			stage: applied ? ('done' as const) : ('preview' as const),
			ready,
			applied,
			half: 5,
			donors: 0,
			nextDonor() {},
			notice() {},
			close() {},
			confirm() {},
			scroll() {},
		});
		const repair = (ready: boolean, applied = false) =>
			footerHints({pane: 'findings', overlay: 'repair'}, context(ready, applied)).map(h => h.text);
		expect(repair(false)).toEqual(['a apply (disabled)', 'Esc back', 'j/k scroll']);
		expect(repair(true)).toEqual(['a apply', 'Esc back', 'j/k scroll']);
		// Stepping through candidate donors is offered only where the operator chooses among several.
		expect(
			footerHints({pane: 'findings', overlay: 'repair'}, {...context(true), donors: 2, nextDonor() {}}).map(
				h => h.text,
			),
		).toEqual(['a apply', 'Esc back', 'd next donor', 'j/k scroll']);
		// Once applied, the footer offers what is true now: no apply, u undoes it, and Esc closes the result.
		expect(repair(true, true)).toEqual(['u undo', 'Esc close', 'j/k scroll']);
		expect(footerHints({pane: 'findings', overlay: 'repair'}).map(h => h.text)).toEqual([
			'a apply',
			'u undo',
			'Esc back',
			'd next donor',
			'j/k scroll',
		]);
	});
});

describe('the app', () => {
	it('moves with j/k and arrows, jumps with G/g, opens a session with Enter and backs out with Esc', async () => {
		const ui = await renderAt(app(), 100, 30);
		try {
			expect(ui.lastFrame()).toMatch(/› O {2}20260814_002820_f7461a7c/);
			await ui.press('j');
			expect(ui.lastFrame()).toMatch(/› · {2}20260814_001820_975f77/);
			await ui.press(DOWN);
			expect(ui.lastFrame()).toMatch(/› O {2}20260813_002257_a192e756/);
			await ui.press('G');
			expect(ui.lastFrame()).toMatch(/› . {2}\S+ .*\n.*26 sessions/);
			await ui.press('g');
			await ui.press('\r');
			expect(ui.lastFrame()).toContain('[2 Detail]');
			expect(ui.lastFrame()).toContain('20260814_002820_f7461a7c  ORPHAN');
			await ui.press(ESC);
			expect(ui.lastFrame()).toContain('[1 Sessions]');
		} finally {
			ui.unmount();
		}
	});

	it('filters with / and shows a live match count; Esc clears the filter', async () => {
		const ui = await renderAt(app(), 100, 30);
		try {
			await ui.press('/');
			for (const ch of 'whatsapp') {
				await ui.press(ch);
			}

			const frame = ui.lastFrame();
			expect(frame).toMatch(/3 match/);
			expect(frame).toContain('20260810_002713_c6b2eea9');
			expect(frame).not.toContain('20260809_002517_f20eabbd');
			await ui.press('\r');
			expect(ui.lastFrame()).toContain('filter "whatsapp" 3/26 match');
			await ui.press(ESC);
			expect(ui.lastFrame()).not.toContain('filter "whatsapp"');
			expect(ui.lastFrame()).toContain('20260809_002517_f20eabbd');
		} finally {
			ui.unmount();
		}
	});

	it('shows every key with ?, filters help as you type, closes with Esc', async () => {
		const ui = await renderAt(app(), 100, 30);
		try {
			await ui.press('?');
			expect(ui.lastFrame()).toContain('Keys — type to filter');
			expect(ui.lastFrame()).toContain('pause or resume live updates');
			for (const ch of 'copy') {
				await ui.press(ch);
			}

			expect(ui.lastFrame()).toContain('copy the selected id');
			expect(ui.lastFrame()).not.toContain('pause or resume live updates');
			await ui.press(ESC);
			expect(ui.lastFrame()).not.toContain('Keys — type to filter');
		} finally {
			ui.unmount();
		}
	});

	it('toggles tool/delegate rows with t and cycles sources with s', async () => {
		const ui = await renderAt(app(), 120, 40);
		try {
			expect(ui.lastFrame()).not.toContain('20260812_002140_6f8c323b');
			await ui.press('t');
			expect(ui.lastFrame()).toContain('20260812_002140_6f8c323b');
			await ui.press('s');
			expect(ui.lastFrame()).toMatch(/source (cli|telegram)/);
		} finally {
			ui.unmount();
		}
	});

	it('copies the selected id with OSC 52 and reports it to the caller on quit', async () => {
		let yanked: string[] = [];
		const ui = await renderAt(
			app({
				onExit: ids => {
					yanked = ids;
				},
			}),
			100,
			30,
		);
		await ui.press('y');
		expect(ui.lastFrame()).toContain('copied 20260814_002820_f7461a7c');
		expect(ui.controls().join('')).toContain(
			`\u001B]52;c;${Buffer.from('20260814_002820_f7461a7c').toString('base64')}`,
		);
		await ui.press('q');
		expect(yanked).toEqual(['20260814_002820_f7461a7c']);
		ui.unmount();
	});

	it('re-lays out on resize and shows a too-small screen below 60x15', async () => {
		const ui = await renderAt(app(), 140, 40);
		try {
			expect(ui.lastFrame()).toContain('started');
			await ui.resize(80, 24);
			expect(ui.lastFrame()).not.toContain('started');
			for (const line of ui.lastFrame().split('\n')) {
				expect(line.length).toBeLessThanOrEqual(80);
			}

			await ui.resize(50, 12);
			expect(ui.lastFrame()).toContain('terminal too small');
			expect(ui.lastFrame()).toContain('50x12, need at least 60x15');
			await ui.resize(100, 30);
			expect(ui.lastFrame()).toContain('[1 Sessions]');
		} finally {
			ui.unmount();
		}
	});

	it('pauses with p: the view freezes and the header counts the changes waiting', async () => {
		const listeners = new Set<(m: LiveModel) => void>();
		let model = live.model;
		const source: LiveSource = {
			get model() {
				return model;
			},
			subscribe(l) {
				listeners.add(l);
				return () => listeners.delete(l);
			},
			detail: id => live.detail(id),
			refresh: () => false,
		};
		const publish = (m: LiveModel) => {
			model = m;
			for (const l of listeners) {
				l(m);
			}
		};

		const ui = await renderAt(<App live={source} color={false} now={() => NOW} />, 100, 30);
		try {
			await ui.press('p');
			expect(ui.lastFrame()).toContain('PAUSED (0 changes waiting)');
			publish({
				...live.model,
				commits: live.model.commits + 3,
				revision: live.model.revision + 1,
				facts: {...live.model.facts, dataVersion: 99},
			});
			await ui.waitFor(f => f.includes('PAUSED (3 changes waiting)'));
			await ui.press('p');
			expect(ui.lastFrame()).toContain('● LIVE');
		} finally {
			ui.unmount();
		}
	});
});

describe('habits of the field', () => {
	const RIGHT = '\u001B[C';
	const LEFT = '\u001B[D';

	it('switches panes with l/h and →/←, wrapping like Tab', async () => {
		const ui = await renderAt(app(), 100, 30);
		try {
			await ui.press('l');
			expect(ui.lastFrame()).toContain('[2 Detail]');
			await ui.press(RIGHT);
			expect(ui.lastFrame()).toContain('[3 Lineage]');
			await ui.press(LEFT);
			await ui.press('h');
			expect(ui.lastFrame()).toContain('[1 Sessions]');
			await ui.press('h');
			expect(ui.lastFrame()).toContain('[8 Backups]');
		} finally {
			ui.unmount();
		}
	});

	it(
		"steps through the filter's matches with n and N, around the end; " + 'without a filter n says how to get one',
		async () => {
			const ui = await renderAt(app(), 100, 30);
			try {
				await ui.press('n');
				expect(ui.lastFrame()).toContain('no filter: / to filter, then n/N step through its matches');
				await ui.press('/');
				for (const ch of 'whatsapp') {
					await ui.press(ch);
				}

				await ui.press('\r');
				const rows = ui
					.lastFrame()
					.split('\n')
					.filter(l => /^(› | {2})\S\s+\d{8}_/.test(l));
				expect(rows).toHaveLength(3);
				const at = () =>
					ui
						.lastFrame()
						.split('\n')
						.filter(l => /^(› | {2})\S\s+\d{8}_/.test(l))
						.findIndex(l => l.startsWith('› '));
				expect(at()).toBe(0);
				await ui.press('n');
				expect(at()).toBe(1);
				await ui.press('N');
				await ui.press('N');
				expect(at()).toBe(2);
				await ui.press('n');
				expect(at()).toBe(0);
			} finally {
				ui.unmount();
			}
		},
	);

	it('says `p resume` in the footer while paused, `p pause` again after', async () => {
		const ui = await renderAt(app(), 140, 30);
		try {
			expect(ui.lastFrame()).toContain('p pause');
			await ui.press('p');
			expect(ui.lastFrame()).toContain('p resume');
			expect(ui.lastFrame()).not.toContain('p pause');
			await ui.press('p');
			expect(ui.lastFrame()).toContain('p pause');
		} finally {
			ui.unmount();
		}
	});

	it('clears `copied <id>` from the footer after a moment, by itself', async () => {
		const ui = await renderAt(app({noticeMs: 200}), 140, 30);
		try {
			await ui.press('y');
			expect(ui.lastFrame()).toContain('copied 20260814_002820_f7461a7c');
			const cleared = await ui.waitFor(f => !f.includes('copied '), 3000);
			expect(cleared).toContain('? help');
		} finally {
			ui.unmount();
		}
	});
});

describe('fast typing', () => {
	it('applies every key of a burst written in one go (no key lost to a stale handler)', async () => {
		const ui = await renderAt(app(), 100, 30);
		try {
			// Four moves arrive before React has re-rendered once.
			await ui.press('jjjj');
			expect(ui.lastFrame()).toMatch(/› ● {2}20260812_002320_bd1b3a16/);
		} finally {
			ui.unmount();
		}
	});

	it(
		'a burst that opens the filter or the help types its rest there: `/427c` ' +
			'filters, `/zq` never quits, `?quit` filters the help',
		async () => {
			const ui = await renderAt(app(), 100, 30);
			try {
				await ui.press('/427c');
				const filtered = await ui.waitFor(f => f.includes(' / 427c'), 2000);
				expect(filtered).toMatch(/1 match/);
				await ui.press('\u001B');
				await ui.waitFor(f => f.includes('? help'), 2000);
				await ui.press('/zq');
				expect(await ui.waitFor(f => f.includes(' / zq'), 2000)).toMatch(/0 match/);
				await ui.press('\u001B');
				await ui.press('\u001B');
				await ui.waitFor(f => f.includes('? help'), 2000);
				await ui.press('?quit');
				expect(await ui.waitFor(f => f.includes('type to filter: quit'), 2000)).toMatch(/q +quit/);
			} finally {
				ui.unmount();
			}
		},
	);
});
