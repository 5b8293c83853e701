/**
 * Session lineage (docs/hermes-rules.md, lineage): which row continues, branches from, resets,
 * delegates from or was adopted into which.
 */
import {REPAIR_END_REASON, RESET_END_REASONS} from '../end-reasons.js';
import {inWindow, startedLater} from '../time.js';
import type {SessionRecord} from '../types.js';

export type EdgeKind = 'compression' | 'branch' | 'reset' | 'delegate' | 'repair';

export type LineageEdge = {
	parentId: string;
	childId: string;
	kind: EdgeKind;
	/** Where the edge comes from: the parent_session_id column, or only a model_config marker. */
	via: 'parent_session_id' | 'marker';
	/** The parent id names no row in this store. */
	parentMissing: boolean;
	/** Why this kind was chosen, in Hermes' terms. */
	rule: string;
};

export type Lineage = {
	edges: LineageEdge[];
	/** The edge to each child's parent. */
	parentEdge: Map<string, LineageEdge>;
	children: Map<string, LineageEdge[]>;
};

/** The delegate marker sentinel for a delegate whose parent vanished. */
const ORPHANED_DELEGATE_SENTINEL = '__orphaned__';

export function classifyEdge(parent: SessionRecord | undefined, child: SessionRecord): {kind: EdgeKind; rule: string} {
	if (child.branchedFrom) {
		return {kind: 'branch', rule: 'model_config._branched_from'};
	}

	if (child.delegateFrom) {
		return {kind: 'delegate', rule: 'model_config._delegate_from'};
	}

	if (child.resetFrom) {
		return {kind: 'reset', rule: 'model_config._reset_from'};
	}

	if (parent?.endReason === 'compression' && child.source !== 'tool') {
		return {kind: 'compression', rule: 'parent ended with compression'};
	}

	if (parent?.endReason === REPAIR_END_REASON && parent.sessionKey !== null && parent.sessionKey === child.sessionKey) {
		return {kind: 'repair', rule: 'parent superseded_by_repair; child carries its session key'};
	}

	if (parent?.endReason === 'branched') {
		const ended = inWindow(parent.endedAtRaw);
		const started = inWindow(child.startedAtRaw);
		if (ended !== null && started !== null && started > ended) {
			return {kind: 'branch', rule: 'parent ended branched before the child started'};
		}
	}

	if (
		parent &&
		parent.endReason !== null &&
		RESET_END_REASONS.has(parent.endReason) &&
		parent.sessionKey &&
		parent.sessionKey === child.sessionKey
	) {
		return {kind: 'reset', rule: `parent ended ${parent.endReason}; same session key (legacy reset successor)`};
	}

	return {kind: 'delegate', rule: 'no continuation marker or end reason (delegate/subagent)'};
}

/** The edge from a session to its parent (parent_session_id, else a lineage marker), or undefined. */
export function edgeOf(child: SessionRecord, index: ReadonlyMap<string, SessionRecord>): LineageEdge | undefined {
	let parentId = child.parentSessionId;
	let via: LineageEdge['via'] = 'parent_session_id';
	if (!parentId) {
		const marker = child.branchedFrom ?? child.delegateFrom ?? child.resetFrom;
		if (!marker || marker === ORPHANED_DELEGATE_SENTINEL) {
			return undefined;
		}

		parentId = marker;
		via = 'marker';
	}

	if (parentId === child.id) {
		return undefined;
	}

	const parent = index.get(parentId);
	const {kind, rule} = classifyEdge(parent, child);
	return {parentId, childId: child.id, kind, via, parentMissing: !parent, rule};
}

function addChild(children: Map<string, LineageEdge[]>, edge: LineageEdge): void {
	const list = children.get(edge.parentId);
	if (list) {
		list.push(edge);
	} else {
		children.set(edge.parentId, [edge]);
	}
}

export function buildLineage(sessions: readonly SessionRecord[], byId?: ReadonlyMap<string, SessionRecord>): Lineage {
	// Run to its end (analysis/steps.ts `drain`, a room above this one).
	const steps = buildLineageSteps(sessions, byId);
	for (let step = steps.next(); ; step = steps.next()) {
		if (step.done) {
			return step.value;
		}
	}
}

/** Sessions per step of `buildLineageSteps` (all 21,516 of the bench store in one held its first analysis 40-67 ms). */
export const LINEAGE_CHUNK = 5000;

/** As `buildLineage`, `chunk` sessions a step: the live view's first analysis answers keys between (issue #26). */
export function* buildLineageSteps(
	sessions: readonly SessionRecord[],
	byId?: ReadonlyMap<string, SessionRecord>,
	chunk = LINEAGE_CHUNK,
): Generator<void, Lineage> {
	const index = byId ?? new Map(sessions.map(s => [s.id, s]));
	const edges: LineageEdge[] = [];
	const parentEdge = new Map<string, LineageEdge>();
	const children = new Map<string, LineageEdge[]>();
	for (let at = 0; at < sessions.length; at++) {
		if (at > 0 && at % chunk === 0) {
			yield;
		}

		const child = sessions[at]!;
		const edge = edgeOf(child, index);
		if (edge) {
			edges.push(edge);
			parentEdge.set(child.id, edge);
			addChild(children, edge);
		}
	}

	return {edges, parentEdge, children};
}

/**
 * The lineage after some sessions changed (added, updated or removed), without rebuilding it:
 * their own edges, and the edges of their children (an edge's kind depends on the parent's end
 * reason), are recomputed. Never mutates `previous`.
 */
function sameEdge(a: LineageEdge | undefined, b: LineageEdge | undefined): boolean {
	return (
		a === b ||
		(a !== undefined &&
			b !== undefined &&
			a.parentId === b.parentId &&
			a.childId === b.childId &&
			a.kind === b.kind &&
			a.via === b.via &&
			a.parentMissing === b.parentMissing &&
			a.rule === b.rule)
	);
}

/** Did a change move any edge: of a changed session, or of one of its children (an edge depends on both ends)? */
function edgesMoved(
	previous: Lineage,
	byId: ReadonlyMap<string, SessionRecord>,
	changed: ReadonlySet<string>,
): boolean {
	const edgeNow = (id: string) => {
		const session = byId.get(id);
		return session ? edgeOf(session, byId) : undefined;
	};

	for (const id of changed) {
		if (!sameEdge(previous.parentEdge.get(id), edgeNow(id))) {
			return true;
		}

		for (const e of previous.children.get(id) ?? []) {
			if (!sameEdge(e, edgeNow(e.childId))) {
				return true;
			}
		}
	}

	return false;
}

/** The children lists, copied from the previous lineage only where a list changes (the rest is shared). */
function childLists(previous: Lineage): {
	children: Map<string, LineageEdge[]>;
	own: (parentId: string) => LineageEdge[] | undefined;
	adopt: (parentId: string, list: LineageEdge[]) => void;
} {
	const children = new Map(previous.children);
	const copied = new Set<string>();
	return {
		children,
		own(parentId) {
			const list = children.get(parentId);
			if (list && !copied.has(parentId)) {
				const copy = [...list];
				children.set(parentId, copy);
				copied.add(parentId);
				return copy;
			}

			return list;
		},
		adopt(parentId, list) {
			children.set(parentId, list);
			copied.add(parentId);
		},
	};
}

export function updateLineage(
	previous: Lineage,
	byId: ReadonlyMap<string, SessionRecord>,
	changed: ReadonlySet<string>,
): Lineage {
	// Most changes (messages appended) move no edge: then the previous lineage stands as is.
	if (!edgesMoved(previous, byId, changed)) {
		return previous;
	}

	const parentEdge = new Map(previous.parentEdge);
	const lists = childLists(previous);
	const touched = new Set(changed);
	for (const id of changed) {
		for (const e of previous.children.get(id) ?? []) {
			touched.add(e.childId);
		}
	}

	for (const id of touched) {
		const old = parentEdge.get(id);
		if (old) {
			const list = lists.own(old.parentId);
			if (list) {
				const i = list.indexOf(old);
				if (i !== -1) {
					list.splice(i, 1);
				}

				if (list.length === 0) {
					lists.children.delete(old.parentId);
				}
			}

			parentEdge.delete(id);
		}

		const session = byId.get(id);
		const edge = session ? edgeOf(session, byId) : undefined;
		if (edge) {
			parentEdge.set(id, edge);
			const list = lists.own(edge.parentId);
			if (list) {
				list.push(edge);
			} else {
				lists.adopt(edge.parentId, [edge]);
			}
		}
	}

	return {edges: [...parentEdge.values()], parentEdge, children: lists.children};
}

/** Ancestors from the immediate parent up to the root (cycle-safe). */
export function ancestors(id: string, lineage: Lineage): LineageEdge[] {
	const chain: LineageEdge[] = [];
	const seen = new Set([id]);
	let edge = lineage.parentEdge.get(id);
	while (edge && !seen.has(edge.parentId)) {
		chain.push(edge);
		seen.add(edge.parentId);
		edge = lineage.parentEdge.get(edge.parentId);
	}

	return chain;
}

/**
 * The compression tip of a session: follow compression continuations to the newest child
 * (Hermes heals a routing entry to its tip before using it).
 */
export function compressionTip(id: string, lineage: Lineage, byId: ReadonlyMap<string, SessionRecord>): string {
	let current = id;
	const seen = new Set<string>();
	while (!seen.has(current)) {
		seen.add(current);
		const row = byId.get(current);
		if (row?.endReason !== 'compression') {
			return current;
		}

		// The newest compression child (latest started_at, then the greatest id).
		let next: SessionRecord | undefined;
		for (const e of lineage.children.get(current) ?? []) {
			const child = e.kind === 'compression' && e.via === 'parent_session_id' ? byId.get(e.childId) : undefined;
			if (child !== undefined && (next === undefined || startedLater(child, next))) {
				next = child;
			}
		}

		if (!next) {
			return current;
		}

		current = next.id;
	}

	return current;
}

export type LineageNode = {
	id: string;
	/** Edge from the parent (undefined at the root). */
	edge: LineageEdge | undefined;
	depth: number;
	children: LineageNode[];
};

/** The tree that contains `id`: from its root ancestor down, cycle-safe, depth-limited. */
export function lineageTree(id: string, lineage: Lineage, maxNodes = 500): LineageNode {
	const up = ancestors(id, lineage);
	const rootId = up.length > 0 ? up.at(-1)!.parentId : id;
	let count = 0;
	const seen = new Set<string>();
	const build = (nodeId: string, edge: LineageEdge | undefined, depth: number): LineageNode => {
		seen.add(nodeId);
		count++;
		const node: LineageNode = {id: nodeId, edge, depth, children: []};
		for (const child of lineage.children.get(nodeId) ?? []) {
			if (seen.has(child.childId) || count >= maxNodes) {
				continue;
			}

			node.children.push(build(child.childId, child, depth + 1));
		}

		return node;
	};

	return build(rootId, undefined, 0);
}

export type TreeLine = {node: LineageNode /** Box-drawing prefix, e.g. "│  └─ ". */; prefix: string};

/** The tree as lines in display order, with box-drawing prefixes. */
export function flattenTree(root: LineageNode): TreeLine[] {
	const lines: TreeLine[] = [];
	const walk = (n: LineageNode, indent: string, last: boolean, isRoot: boolean) => {
		lines.push({node: n, prefix: isRoot ? '' : `${indent}${last ? '└─ ' : '├─ '}`});
		const childIndent = isRoot ? '' : indent + (last ? '   ' : '│  ');
		for (const [i, c] of n.children.entries()) {
			walk(c, childIndent, i === n.children.length - 1, false);
		}
	};

	walk(root, '', true, true);
	return lines;
}
