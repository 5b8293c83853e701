/**
 * The whole home in the live view, its pure parts on real stores (two profiles written by second
 * processes): the header's word on the profiles, every profile's findings in one list naming its
 * profile, the banner across profiles naming the worst, and the focus moving with P.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {LiveStore} from '../../source/live/live.js';
import {App} from '../../source/ui/app.js';
import {homeBannerLines} from '../../source/ui/components/banner.js';
import {headerProfile} from '../../source/ui/components/header.js';
import {mergedFindings, profilesSummary} from '../../source/ui/sources/home-model.js';
import {HomeStores} from '../../source/ui/sources/home-source.js';
import {T0} from '../fixtures/scenarios.js';
import {HOME_KEY, homeRoot, writeIncident} from '../helpers/home-root.js';
import {renderAt} from '../helpers/render.js';
import type {WriterProcess} from '../helpers/writer.js';

/** Said once, in work's orphan: what the content search finds while default is focused. */
const PHRASE = 'where is the quarterly Okavango report?';
let dir = '';
let writers: WriterProcess[] = [];
let stores: LiveStore[] = [];
let orphan = '';
let quiet = '';

beforeAll(async () => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-home-'));
	const made = await homeRoot(dir);
	writers = [made.main, made.work];
	quiet = made.quiet;
	({orphan} = await writeIncident(made.work));
	await made.work.send({op: 'messages', id: orphan, messages: [{role: 'user', content: PHRASE, timestamp: T0 + 9100}]});
	stores = [
		LiveStore.open({path: path.join(dir, 'state.db'), owner: 'default', label: 'default'}, {watch: false}),
		LiveStore.open(
			{path: path.join(dir, 'profiles', 'work', 'state.db'), owner: 'work', label: 'work'},
			{watch: false},
		),
	];
}, 30_000);

afterAll(async () => {
	for (const store of stores) {
		store.close();
	}

	await Promise.all(writers.map(async w => w.kill()));
	fs.rmSync(dir, {recursive: true, force: true});
});

const homeOf = () =>
	new HomeStores(
		[
			{name: 'default', store: stores[0]!},
			{name: 'work', store: stores[1]!},
		],
		'2 stores, showing default',
	);

describe('the home across profiles', () => {
	it('the header counts the profiles and names the one at risk, before the focused profile', () => {
		const {home} = homeOf();
		expect(profilesSummary(home.model)).toBe('2 profiles · work ✗ rollback risk');
		expect(headerProfile('default', home.model)).toBe('2 profiles · work ✗ rollback risk · on default');
		expect(headerProfile('default')).toBe('profile default');
		const quietOnly = {profiles: home.model.profiles.slice(0, 1), focused: 'default'};
		expect(profilesSummary(quietOnly)).toBe('1 profile · none at risk');
		const both = {profiles: [home.model.profiles[1]!, {...home.model.profiles[1]!, name: 'ops'}], focused: 'work'};
		expect(profilesSummary(both)).toBe('2 profiles · ✗ work, ops at risk');
	});

	it('a profile whose store cannot be opened is counted and named, never dropped silently', () => {
		const {home} = homeOf();
		const quietOnly = {
			profiles: home.model.profiles.slice(0, 1),
			focused: 'default',
			unreadable: [{name: 'bad', reason: 'not a SQLite database'}],
		};
		expect(profilesSummary(quietOnly)).toBe('2 profiles · bad ✗ unreadable');
		expect(profilesSummary({...home.model, unreadable: quietOnly.unreadable})).toBe('3 profiles · ✗ work, bad at risk');
	});

	it("lists every profile's findings, each naming its profile, the critical first across profiles", () => {
		const {home} = homeOf();
		const [main, work] = home.model.profiles;
		const merged = mergedFindings(home.model);
		expect(merged).toHaveLength(main!.model.analysis.findings.length + work!.model.analysis.findings.length);
		expect(merged[0]).toMatchObject({
			profile: 'work',
			severity: 'critical',
			kind: 'rollback-risk',
			subject: HOME_KEY,
			title: `[work] ROLLBACK RISK ${HOME_KEY}`,
		});
		expect(merged.every(f => f.title.startsWith(`[${f.profile}] `))).toBe(true);
		const ranks = merged.map(f => ['critical', 'warning', 'info'].indexOf(f.severity));
		expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
	});

	it('the banner counts across profiles and names the worst, within the width', () => {
		const {home} = homeOf();
		const lines = homeBannerLines(home.model, 80);
		expect(lines.rolledBack).toBeNull();
		expect(lines.risky).toMatch(/^ \[work] ✗ ROLLBACK RISK 1 chat: /);
		expect(lines.risky!.length).toBeLessThanOrEqual(80);
	});

	it("P focuses the next profile: the panes' store becomes work's, the header says so", async () => {
		const stores = homeOf();
		const ui = await renderAt(
			<App live={stores.live} home={stores.home} color={false} now={() => T0 + 10_000} />,
			80,
			24,
		);
		try {
			const first = ui.lastFrame();
			expect(first.split('\n')[0]).toContain('2 profiles · work ✗ rollback risk · on default');
			expect(first).toContain(quiet);
			expect(first).toContain(' 2 stores, showing default');
			await ui.press('P');
			const after = await ui.waitFor(f => f.includes('· on work'));
			expect(after).toContain(orphan);
			expect(after).not.toContain(quiet);
			expect(stores.live.model).toBe(stores.focused.model);
			expect(stores.home.model.focused).toBe('work');
		} finally {
			ui.unmount();
			stores.close();
		}
	});

	it("⏎ on a hit in work while default is focused: the key's frame is all work's, gate wide open", async () => {
		const stores = homeOf();
		// The live sources held to one frame in 1.5 s: the focus moved by a key must not wait for it (a frame with
		// default's header and model over work's detail said "not in this store").
		const ui = await renderAt(
			<App live={stores.live} home={stores.home} color={false} now={() => T0 + 10_000} frameMs={1500} />,
			80,
			24,
		);
		try {
			await ui.press('/');
			await ui.press('\t');
			await ui.press('Okavango report');
			await ui.press('\r');
			await ui.waitFor(f => f.includes('1 hits'));
			await ui.press('\r');
			const frame = ui.lastFrame();
			expect(frame.split('\n')[0]).toContain('· on work');
			expect(frame).toContain(PHRASE);
			expect(frame).toContain(orphan);
			expect(frame).not.toContain('not in this store');
		} finally {
			ui.unmount();
			stores.close();
		}
	});
});
