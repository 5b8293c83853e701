/**
 * The repair flow in the TUI, on a real store held by a real "gateway" process: the apply key
 * stays disabled while the gateway holds the files, the checklist turns green when it stops, a
 * typed confirmation applies exactly the previewed plan, and the result shows the new routing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {App} from '../../../source/ui/app.js';
import {repairServiceFor} from '../../../source/ui/repair/repair-service.js';
import {LiveStore} from '../../../source/live/live.js';
import {holderChecks} from '../../../source/repair/write/preconditions.js';
import {SCENARIOS, buildScenario} from '../../fixtures/scenarios.js';
import {renderAt} from '../../helpers/render.js';
import {WriterProcess} from '../../helpers/writer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-tui-repair-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

/** The TUI on a store (unwatched), with the repair service of the default profile. */
async function openApp(dbPath: string, columns: number, rows: number) {
	const live = LiveStore.open({path: dbPath, owner: 'default', label: 'test'}, {watch: false});
	const ui = await renderAt(
		<App
			live={live}
			repair={repairServiceFor({dbPath, owner: 'default', maxGapSeconds: 900})}
			color={false}
			now={() => Date.now() / 1000}
		/>,
		columns,
		rows,
	);
	return {live, ui};
}

/** The same, while a stand-in gateway (a second process) holds the store, as the preconditions must see. */
async function openWithGateway(dbPath: string, columns: number, rows: number) {
	const gateway = new WriterProcess(dbPath);
	await gateway.started();
	await gateway.send({op: 'ping'});
	return {gateway, ...(await openApp(dbPath, columns, rows))};
}

describe('repair from the Findings pane', () => {
	it(
		'previews, waits for the gateway to stop, asks for the typed ' + 'confirmation, applies and shows the new routing',
		async () => {
			const {dbPath, ids} = buildScenario(SCENARIOS[0]!, 'v30', {dir});
			const {gateway, live, ui} = await openWithGateway(dbPath, 140, 40);
			try {
				await ui.press('5');
				// r on the chat's ROLLBACK RISK finding opens the repair of the orphan holding its newest message.
				await ui.press('r');
				let frame = await ui.waitFor(f => f.includes(`→ adopt ${ids.orphan}`));
				expect(frame).toContain('preview: nothing is written');
				expect(frame).toMatch(/session_key\s+NULL\s+agent:main:telegram:dm:777001/);
				frame = await ui.waitFor(f => f.includes('✗ no other process holds state.db'));
				expect(frame).toContain(`pid ${gateway.pid}`);
				// At 140x40 the failed precondition's next step is whole (wrapped, not cut), as is every line of the flow.
				const flow = frame.split('\n').slice(frame.split('\n').findIndex(l => l.startsWith(' Repair ')));
				expect(flow.filter(l => l.endsWith('…'))).toEqual([]);
				const failed = holderChecks(dbPath).find(c => !c.ok)!;
				expect(flow.join('').replace(/\s+/g, '')).toContain(`next:${failed.next!}`.replace(/\s+/g, ''));
				expect(frame).toContain('a apply (disabled)');
				await ui.press('a');
				expect(ui.lastFrame()).toContain('apply is disabled until every precondition holds');
				expect(ui.lastFrame()).not.toContain('type the random suffix');

				await gateway.kill();
				await ui.waitFor(f => f.includes('✓ no other process holds state.db'), 5000);
				await ui.press('a');
				await ui.waitFor(f =>
					f.includes(`to adopt, type the random suffix (${ids.orphan!.split('_').at(-1)}) of ${ids.orphan}:`),
				);
				// The first 8 characters are the orphan's start date, shared with its donor: no longer enough.
				for (const ch of ids.orphan!.slice(0, 8)) {
					await ui.press(ch);
				}

				await ui.press('\r');
				await ui.waitFor(f => f.includes('the confirmation did not match: nothing was written'));
				await ui.press('a');
				await ui.waitFor(f => f.includes('type the random suffix'));
				for (const ch of ids.orphan!.split('_').at(-1)!) {
					await ui.press(ch);
				}

				await ui.press('\r');
				frame = await ui.waitFor(f => f.includes('now owns'), 15_000);
				expect(frame).toContain(
					`✓ ${ids.orphan} now owns agent:main:telegram:dm:777001; after a restart the gateway resumes ${ids.orphan}`,
				);
				expect(frame).toMatch(/undo with: hfx repair --undo \d+/);
				const check = new Database(dbPath, {readonly: true});
				expect(check.prepare('SELECT session_key FROM sessions WHERE id = ?').pluck().get(ids.orphan)).toBe(
					'agent:main:telegram:dm:777001',
				);
				check.close();
				await ui.press('\u001B');
				frame = await ui.waitFor(f => f.includes('[5 Findings'));
				expect(frame).not.toContain('ROLLBACK RISK');
			} finally {
				ui.unmount();
				live.close();
				await gateway.kill();
			}
		},
	);
});

/** The long origin_json the donor carries: the orphan's after value, wider than any cell at 80 columns. */
const ORIGIN = JSON.stringify({
	platform: 'telegram',
	chat_id: '777001',
	chat_type: 'dm',
	user_id: 'u-teknium',
	thread_id: null,
	via: 'gateway',
	note: 'a value far wider than the after column of an 80-column terminal',
});

/** Every line of the flow's body, read by scrolling it with j from the top (the indicator places each window). */
async function readWhole(ui: Awaited<ReturnType<typeof renderAt>>): Promise<{body: string[]; frames: string[]}> {
	await ui.press('g');
	const body: string[] = [];
	const frames: string[] = [];
	for (let i = 0; i < 200; i++) {
		const frame = ui.lastFrame();
		frames.push(frame);
		const at = /lines (\d+)–(\d+) of (\d+)/.exec(frame);
		expect(at, frame).not.toBeNull();
		const [first, last, total] = at!.slice(1).map(Number) as [number, number, number];
		const lines = frame.split('\n');
		const top = lines.findIndex(l => l.startsWith(' Repair '));
		lines.slice(top + 1, top + 1 + last - first + 1).forEach((l, j) => {
			body[first - 1 + j] = l;
		});
		if (last === total) {
			return {body, frames};
		}

		await ui.press('j');
	}

	throw new Error('the indicator never reached the last line');
}

describe('the repair preview at 80x24', () => {
	it(
		'wraps every after value and every precondition whole, scrolls with ' +
			'j/k/g/G and C-d/C-u, and after the apply says what is true now',
		async () => {
			const {dbPath, ids} = buildScenario(SCENARIOS[0]!, 'v30', {dir: fs.mkdtempSync(path.join(dir, 'narrow-'))});
			const setup = new Database(dbPath);
			setup.prepare('UPDATE sessions SET origin_json = ? WHERE id = ?').run(ORIGIN, ids.zombie);
			setup.close();
			const {gateway, live, ui} = await openWithGateway(dbPath, 80, 24);
			try {
				const dvBefore = /dv (\d+)/.exec(ui.lastFrame())?.[1];
				await ui.press('5');
				await ui.press('r');
				await ui.waitFor(f => f.includes('a apply (disabled)') && /lines 1–\d+ of \d+/.test(f));
				const {body, frames} = await readWhole(ui);
				// Nothing is cut: no line of any window ends in an ellipsis, and none is wider than the terminal.
				for (const frame of frames) {
					for (const line of frame.split('\n')) {
						expect(line.length, line).toBeLessThanOrEqual(80);
						expect(line, line).not.toMatch(/…$/);
					}
				}

				// The orphan's origin_json after value, read back from its cell across its continuation lines.
				const head = body.findIndex(l => /^ {3}column\s+before\s+after$/.test(l));
				const afterAt = body[head]!.indexOf('after');
				const start = body.findIndex(l => l.includes(' origin_json '));
				const cell: string[] = [body[start]!.slice(afterAt)];
				for (let i = start + 1; body[i]!.slice(0, afterAt).trim() === ''; i++) {
					cell.push(body[i]!.slice(afterAt));
				}

				expect(cell.length).toBeGreaterThan(1);
				expect(cell.join('')).toBe(ORIGIN);
				expect(body.some(l => /session_key\s+NULL\s+agent:main:telegram:dm:777001/.test(l))).toBe(true);
				// Every precondition and its next step, whole (wrapped lines joined again).
				const flat = body.join('').replace(/\s+/g, '');
				for (const c of holderChecks(dbPath)) {
					expect(flat).toContain(c.label.replace(/\s+/g, ''));
					if (c.next) {
						expect(flat).toContain(c.next.replace(/\s+/g, ''));
					}
				}

				expect(flat).toContain('averifiedsnapshotistaken');
				// G, g, C-d and C-u move the window as they say.
				await ui.press('G');
				const total = Number(/of (\d+)/.exec(ui.lastFrame())![1]);
				expect(ui.lastFrame()).toMatch(new RegExp(`lines \\d+–${total} of ${total}`));
				await ui.press('\u0015');
				const upHalf = Number(/lines (\d+)–/.exec(ui.lastFrame())![1]);
				await ui.press('\u0004');
				expect(ui.lastFrame()).toMatch(new RegExp(`lines \\d+–${total} of ${total}`));
				await ui.press('k');
				expect(Number(/lines (\d+)–/.exec(ui.lastFrame())![1])).toBeLessThan(total);
				expect(upHalf).toBeLessThan(total - 10);
				await ui.press('g');
				expect(ui.lastFrame()).toMatch(/lines 1–\d+ of/);
				// Keys typed faster than a read arrive as one input (key repeat over SSH): each one counts.
				await ui.press('jjj');
				await ui.waitFor(f => /lines 4–/.test(f));
				await ui.press('kk');
				await ui.waitFor(f => /lines 2–/.test(f));
				await ui.press('g');

				await gateway.kill();
				await ui.waitFor(f => f.includes('a apply') && !f.includes('a apply (disabled)'), 5000);
				// `a` and an answer in one burst: the answer is typed into the prompt, and not submitted.
				await ui.press('azz');
				await ui.waitFor(f => /type its random suffix \(\w+\): zz/.test(f));
				await ui.press('\u001B');
				await ui.waitFor(f => f.includes('not confirmed: nothing was written'));
				await ui.press('a');
				await ui.waitFor(f => f.includes(`to adopt, type its random suffix (${ids.orphan!.split('_').at(-1)}):`));
				// A pasted answer with its newline, in one burst: submitted with everything typed.
				await ui.press(`${ids.orphan!.split('_').at(-1)!}\r`);
				const done = await ui.waitFor(f => f.includes('now owns') && !f.includes(`dv ${dvBefore} `), 15_000);
				expect(done).toMatch(new RegExp(` Repair ${ids.orphan} applied · undo available: hfx repair --undo \\d+`));
				expect(done).toContain('Esc close');
				expect(done).not.toContain('a apply');
				expect(done).not.toContain('preview: nothing is written');
				expect(/dv (\d+)/.exec(done)?.[1]).not.toBe(dvBefore);
			} finally {
				ui.unmount();
				live.close();
				await gateway.kill();
			}
		},
	);
});

describe("the operator's adoption of an orphan repair-routing refuses", () => {
	it(
		'shows its candidate donors in Findings; d previews the adoption from ' +
			'one (d again: the next), the confirmation asks for both suffixes',
		async () => {
			const {dbPath, ids} = buildScenario(SCENARIOS.find(s => s.id === 'R1-tip')!, 'v30', {
				dir: fs.mkdtempSync(path.join(dir, 'donor-')),
			});
			const {live, ui} = await openApp(dbPath, 140, 40);
			const suffix = (id: string) => id.split('_').at(-1)!;
			try {
				await ui.press('5');
				await ui.press('j');
				let frame = await ui.waitFor(f =>
					f.includes(
						`candidate donor ${ids.tip} (agent:main:telegram:dm:777001): fell quiet 60 seconds before it started`,
					),
				);
				expect(frame).toContain(
					`candidate donor ${ids.parent} (agent:main:telegram:dm:777001): fell quiet 4 minutes before it started`,
				);
				expect(frame).toContain('d adopt from a candidate donor (your choice)');
				await ui.press('r');
				expect(ui.lastFrame()).toContain(
					`repair-routing refuses ${ids.orphan} (d adopts it from a candidate donor, your choice)`,
				);
				await ui.press('d');
				frame = await ui.waitFor(f => f.includes(`evidence: your choice of donor ${ids.tip}`));
				expect(frame.replace(/\n\s+/g, ' ')).toContain(
					`! operator choice: repair-routing refuses ${ids.orphan} ` +
						`(ambiguous_predecessor: ambiguous: more than one keyed predecessor ` +
						`matches this window); this adoption from ${ids.tip} is your decision`,
				);
				expect(frame).toMatch(new RegExp(`parent_session_id\\s+NULL\\s+${ids.tip}`));
				expect(frame).toContain('d next donor');
				// A burst of two: one step (the second d was typed for a screen not drawn yet), and planned.
				await ui.press('dd');
				frame = await ui.waitFor(f => f.includes(`evidence: your choice of donor ${ids.parent}`));
				expect(frame).toMatch(new RegExp(`parent_session_id\\s+NULL\\s+${ids.parent}`));
				// d and a in one burst: the step back, and no confirmation of a plan not yet seen.
				await ui.press('da');
				await ui.waitFor(
					f =>
						f.includes(`evidence: your choice of donor ${ids.tip}`) &&
						f.includes('a apply') &&
						!f.includes('a apply (disabled)'),
					5000,
				);
				expect(ui.lastFrame()).not.toContain('your choice: type');
				await ui.press('a');
				await ui.waitFor(f =>
					f.includes(
						`your choice: type the orphan's and the donor's suffixes (${suffix(ids.orphan!)} ${suffix(ids.tip!)}):`,
					),
				);
				// The orphan's suffix alone, enough for repair-routing's own adoption, is not enough here.
				for (const ch of suffix(ids.orphan!)) {
					await ui.press(ch);
				}

				await ui.press('\r');
				await ui.waitFor(f => f.includes('the confirmation did not match: nothing was written'));
				await ui.press('a');
				await ui.waitFor(f => f.includes('your choice: type'));
				for (const ch of `${suffix(ids.orphan!)} ${suffix(ids.tip!)}`) {
					await ui.press(ch);
				}

				await ui.press('\r');
				frame = await ui.waitFor(f => f.includes('now owns'), 15_000);
				expect(frame).toContain(
					`✓ ${ids.orphan} now owns agent:main:telegram:dm:777001; after a restart the gateway resumes ${ids.orphan}`,
				);
				const check = new Database(dbPath, {readonly: true});
				expect(
					check.prepare('SELECT session_key, parent_session_id FROM sessions WHERE id = ?').get(ids.orphan),
				).toEqual({session_key: 'agent:main:telegram:dm:777001', parent_session_id: ids.tip});
				expect(check.prepare('SELECT end_reason FROM sessions WHERE id = ?').pluck().get(ids.tip)).toBe(
					'superseded_by_repair',
				);
				check.close();
			} finally {
				ui.unmount();
				live.close();
			}
		},
	);
});
