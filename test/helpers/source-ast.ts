/**
 * hfx's TypeScript sources parsed for the build checks (floors, function length), with oxc-parser:
 * TypeScript 7's package is the native compiler and has no JavaScript API to parse with.
 */
import {parseSync} from 'oxc-parser';

/** An ESTree node as oxc-parser gives it: a type, source offsets, and children anywhere in its fields. */
export type AstNode = {type: string; start: number; end: number; [field: string]: unknown};

export type Parsed = ReturnType<typeof parseSync>;

/** One file parsed; a file oxc cannot parse fails the check that asked, naming the file and the first error. */
export function parseSource(file: string, text: string): Parsed {
	const parsed = parseSync(file, text, {lang: file.endsWith('x') ? 'tsx' : 'ts', sourceType: 'module'});
	if (parsed.errors.length > 0) {
		throw new Error(`${file}: ${parsed.errors[0]!.message}`);
	}

	return parsed;
}

function isNode(value: unknown): value is AstNode {
	return typeof value === 'object' && value !== null && typeof (value as {type?: unknown}).type === 'string';
}

/** Calls `visit` on every node under `node`, parents first, with each node's parent. */
export function walk(
	node: AstNode,
	visit: (node: AstNode, parent: AstNode | undefined) => void,
	parent?: AstNode,
): void {
	visit(node, parent);
	for (const [key, value] of Object.entries(node)) {
		if (key === 'parent') {
			continue;
		}

		for (const child of Array.isArray(value) ? value : [value]) {
			if (isNode(child)) {
				walk(child, visit, node);
			}
		}
	}
}

/** The 0-based line of each offset of `text`, by binary search over its line starts. */
export function lineOf(text: string): (offset: number) => number {
	const starts = [0];
	for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
		starts.push(i + 1);
	}

	return offset => {
		let [low, high] = [0, starts.length - 1];
		while (low < high) {
			const mid = (low + high + 1) >> 1;
			if (starts[mid]! <= offset) {
				low = mid;
			} else {
				high = mid - 1;
			}
		}

		return low;
	};
}
