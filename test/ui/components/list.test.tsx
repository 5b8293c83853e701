/**
 * The list the keyed panes share: a row keeps its node (its key is its identity, not its row number) when the
 * live model inserts rows above the cursor, a row whose line did not change is not rendered again, the window follows
 * the cursor, and an empty list says so.
 */
import type React from 'react';
import {useState} from 'react';
import {render} from 'ink-testing-library';
import {describe, expect, it} from 'vitest';
import {KeptLines, List} from '../../../source/ui/components/list.js';
import {cutKeepingIds, wrapLine} from '../../../source/text/fit.js';
import {settle} from '../../helpers/render.js';

// Ink keeps each render's instance (its root node) by its stdout; the package exports only its entry point.
const {default: instances} = (await import(
	new URL('../../../node_modules/ink/build/instances.js', import.meta.url).href
)) as {default: WeakMap<object, {rootNode: InkNode}>};

type InkNode = {nodeName: string; nodeValue?: string; childNodes?: InkNode[]; internal_transform?: unknown};

const textOf = (node: InkNode): string =>
	node.nodeName === '#text' ? (node.nodeValue ?? '') : (node.childNodes ?? []).map(textOf).join('');

/** Each shown row's text node, by the row's text (without the cursor mark). */
function rowNodes(stdout: object): Map<string, InkNode> {
	const out = new Map<string, InkNode>();
	const walk = (node: InkNode) => {
		if (node.nodeName === 'ink-text') {
			out.set(textOf(node).slice(2), node);
			return;
		}

		for (const child of node.childNodes ?? []) {
			walk(child);
		}
	};

	walk(instances.get(stdout)!.rootNode);
	return out;
}

type Row = {id: string; text: string};
const row = (id: string): Row => ({id, text: `row ${id}`});

const list = (items: Row[], cursor: number, height = 5) => (
	<List
		items={items}
		id={r => r.id}
		cursor={cursor}
		height={height}
		width={40}
		header="rows"
		empty="no rows yet"
		line={r => r.text}
	/>
);

/**
 * Rows from state, as the live model reaches the panes (Ink's own rerender renders every Text again: its App gives them
 * a new context value).
 */
let publishRows: (rows: Row[]) => void = () => {};
function Live(): React.ReactElement {
	const [rows, setRows] = useState([row('a'), row('b'), row('c'), row('d')]);
	publishRows = setRows;
	return list(rows, 0);
}

describe('List', () => {
	it('keeps each row on its node when rows are inserted above the cursor', () => {
		const ui = render(list([row('b'), row('c'), row('d')], 1));
		const before = rowNodes(ui.stdout);
		ui.rerender(list([row('a'), row('a2'), row('b'), row('c'), row('d')], 3));
		const after = rowNodes(ui.stdout);
		expect(ui.lastFrame()).toContain('› row c');
		for (const id of ['b', 'c', 'd']) {
			expect(after.get(`row ${id}`), id).toBe(before.get(`row ${id}`));
		}

		expect(before.has('row a')).toBe(false);
		ui.unmount();
	});

	it('renders again only the rows whose line, colour or selection changed (issue #26)', async () => {
		// Ink's Text gives its node a new transform each time it renders: a row left alone keeps the one it had.
		const transforms = (stdout: object) =>
			new Map([...rowNodes(stdout)].map(([text, node]) => [text, node.internal_transform]));
		const ui = render(<Live />);
		const before = transforms(ui.stdout);
		publishRows([row('a'), {id: 'b', text: 'row b, one more message'}, row('c'), row('d')]);
		await settle();
		const after = transforms(ui.stdout);
		expect(ui.lastFrame()).toContain('row b, one more message');
		for (const text of ['row a', 'row c', 'row d']) {
			expect(after.get(text), text).toBe(before.get(text));
		}

		expect(after.get('row b, one more message')).not.toBe(before.get('row b'));
		ui.unmount();
	});

	it('cuts a row again only when its text, the width or the wrapping changed (issue #26)', () => {
		const kept = new KeptLines();
		const text = `${'x'.repeat(30)} 20260808_213339_393e622d and more`;
		const first = kept.frame(40, false).lines(text);
		expect(first).toEqual([cutKeepingIds(text, 40)]);
		// The next frame's row is the very line cut before, not cut again.
		expect(kept.frame(40, false).lines(text)).toBe(first);
		const narrower = kept.frame(30, false).lines(text);
		expect(narrower).toEqual([cutKeepingIds(text, 30)]);
		const wrapped = kept.frame(30, true).lines(text);
		expect(wrapped).toEqual(wrapLine(text, 30));
		// A row not shown in a frame ages out.
		kept.frame(30, true).lines('another row');
		kept.frame(30, true);
		expect(kept.lines(text)).not.toBe(wrapped);
		expect(kept.lines(text)).toEqual(wrapped);
	});

	it('moves its window to keep the cursor row shown', () => {
		const items = Array.from({length: 20}, (_, i) => row(String(i)));
		const ui = render(list(items, 0));
		expect(ui.lastFrame()).toContain('› row 0');
		ui.rerender(list(items, 15));
		const frame = ui.lastFrame()!;
		expect(frame).toContain('› row 15');
		expect(frame).not.toContain('row 0\n');
		expect(frame.split('\n')[0]).toMatch(/14–17\/20$/);
		ui.unmount();
	});

	it('says the list is empty in its own words', () => {
		const ui = render(list([], 0));
		expect(ui.lastFrame()).toBe(['  rows', '  no rows yet', '', '', ''].join('\n'));
		ui.unmount();
	});
});
