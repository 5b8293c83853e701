/**
 * The Ink patch keeps each text node's text as last drawn (squashed, then cut to its width) on the node
 * (render-node-to-output.js `fittedText`) until a change of the node marks it dirty (dom.js `forgetFittedText`): the
 * frame after a live refresh that changed one row fits that row's text only (issue #26: the render cost per frame).
 * These check that rows left alone keep what they drew, and that every kind of change is still drawn.
 */
import type React from 'react';
import {Box, Text, Transform} from 'ink';
import {render} from 'ink-testing-library';
import {describe, expect, it} from 'vitest';

// Ink keeps each render's instance (its root node) by its stdout; the package exports only its entry point.
const {default: instances} = (await import(
	new URL('../../node_modules/ink/build/instances.js', import.meta.url).href
)) as {default: WeakMap<object, {rootNode: InkNode}>};

type InkNode = {nodeName: string; nodeValue?: string; childNodes?: InkNode[]; internal_fitted?: {text?: string}};

/** Every ink-text node of the tree, in order. */
function textNodes(stdout: object): InkNode[] {
	const out: InkNode[] = [];
	const walk = (node: InkNode) => {
		if (node.nodeName === 'ink-text') {
			out.push(node);
			return;
		}

		for (const child of node.childNodes ?? []) {
			walk(child);
		}
	};

	walk(instances.get(stdout)!.rootNode);
	return out;
}

const rows = (texts: string[]) => (
	<Box flexDirection="column" width={30}>
		{texts.map((text, i) => (
			<Text key={String(i)} wrap="truncate">
				{text}
			</Text>
		))}
	</Box>
);

const upper = (s: string) => s.toUpperCase();
const same = (s: string) => s;

/**
 * A text with nested parts (a transformed one, a text, one added or not), cut to 30 columns: its width stays the same
 * whatever changes inside it, so only the node's own change can make it drawn again.
 */
const nested = (o: {loud: boolean; tail: string; extra: boolean}) => (
	<Box width={30}>
		<Text wrap="truncate">
			head{' '}
			<Transform transform={o.loud ? upper : same}>
				<Text>middle</Text>
			</Transform>{' '}
			<Text>{o.tail}</Text>
			{o.extra ? <Text> extra</Text> : null} {'.'.repeat(40)}
		</Text>
	</Box>
);
const FIRST = `head middle tail ${'.'.repeat(12)}…`;

describe('the Ink patch: a text as last drawn, kept on its node', () => {
	it('fits again only the text that changed; the others keep what they drew (issue #26)', () => {
		const texts = Array.from({length: 10}, (_, i) => `row ${i} ${'·'.repeat(40)}`);
		const ui = render(rows(texts));
		const before = textNodes(ui.stdout).map(n => n.internal_fitted);
		expect(before.every(kept => kept !== undefined)).toBe(true);
		ui.rerender(rows(texts.map((t, i) => (i === 4 ? `row 4 changed ${'·'.repeat(40)}` : t))));
		const after = textNodes(ui.stdout).map(n => n.internal_fitted);
		for (const i of [0, 1, 2, 3, 5, 6, 7, 8, 9]) {
			expect(after[i], `row ${i}`).toBe(before[i]);
		}

		expect(after[4]).not.toBe(before[4]);
		expect(after[4]?.text).toBe(`row 4 changed ${'·'.repeat(15)}…`);
		expect(ui.lastFrame()!.split('\n')[4]).toBe(`row 4 changed ${'·'.repeat(15)}…`);
		ui.unmount();
	});

	it.each([
		['a nested transform', {loud: true, tail: 'tail', extra: false}],
		['a nested text', {loud: false, tail: 'liat', extra: false}],
		['a part added', {loud: false, tail: 'tail', extra: true}],
	])('draws %s changed as a fresh render draws it', (_what, next) => {
		const first = {loud: false, tail: 'tail', extra: false};
		const ui = render(nested(first));
		expect(ui.lastFrame()).toBe(FIRST);
		ui.rerender(nested(next));
		const fresh = render(nested(next));
		expect(ui.lastFrame()).toBe(fresh.lastFrame());
		expect(ui.lastFrame()).not.toBe(FIRST);
		ui.rerender(nested(first));
		expect(ui.lastFrame()).toBe(FIRST);
		fresh.unmount();
		ui.unmount();
	});

	it('fits a kept text again when its width changes', () => {
		const line = (width: number): React.ReactElement => (
			<Box width={width}>
				<Text wrap="truncate">{'abcdefghij'.repeat(3)}</Text>
			</Box>
		);
		const ui = render(line(20));
		expect(ui.lastFrame()).toBe(`${'abcdefghij'.repeat(2).slice(0, 19)}…`);
		ui.rerender(line(12));
		expect(ui.lastFrame()).toBe('abcdefghija…');
		ui.unmount();
	});
});
