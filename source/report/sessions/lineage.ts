/**
 * What `hfx lineage ID` prints: the session's family as a tree (where it came from, what continued
 * it) with the edge legend, and the --json document (its ancestors and the tree).
 */
import type {Analysis} from '../../forensics/analysis/analyze.js';
import {type LineageEdge, type LineageNode, flattenTree} from '../../forensics/lineage/lineage.js';
import {statusIndex, statusOf, STATUS_GLYPH} from '../../forensics/analysis/status.js';
import {inWindow, lastActive} from '../../forensics/time.js';
import type {DatabaseFacts} from '../../store/read/load.js';
import {utc} from '../../text/format.js';

function nodeJson(node: LineageNode, analysis: Analysis): unknown {
	const s = analysis.byId.get(node.id);
	return {
		id: node.id,
		present: s !== undefined,
		edgeKind: node.edge?.kind ?? null,
		edgeRule: node.edge?.rule ?? null,
		source: s?.source ?? null,
		sessionKey: s?.sessionKey ?? null,
		endReason: s?.endReason ?? null,
		startedAt: s ? inWindow(s.startedAtRaw) : null,
		children: node.children.map(c => nodeJson(c, analysis)),
	};
}

function renderTree(node: LineageNode, analysis: Analysis, focus: string): string[] {
	const index = statusIndex(analysis);
	return flattenTree(node).map(({node: n, prefix}) => {
		const s = analysis.byId.get(n.id);
		const glyph = s ? STATUS_GLYPH[statusOf(s, index)] : '?';
		const label = s
			? `${n.id}  ${s.source}  ${s.sessionKey ?? 'no key'} ` +
				` ${utc(inWindow(s.startedAtRaw))} → ${utc(lastActive(s))} ` +
				` ${s.endReason ?? 'live'}`
			: `${n.id}  (not in this store)`;
		return `${prefix}${n.edge ? `[${n.edge.kind}] ` : ''}${glyph} ${label}${n.id === focus ? '  ◀' : ''}`;
	});
}

/** `hfx lineage --json`: the store, the session, its ancestors (nearest first) and its tree. */
export function lineageJson(
	facts: DatabaseFacts,
	id: string,
	chain: readonly LineageEdge[],
	tree: LineageNode,
	analysis: Analysis,
) {
	return {
		database: facts.path,
		owner: facts.owner,
		ownerSource: facts.ownerSource,
		ruleSet: facts.ruleSet,
		sessionId: id,
		ancestors: chain.map(e => ({id: e.parentId, edgeKind: e.kind, via: e.via})),
		tree: nodeJson(tree, analysis),
	};
}

/** The tree, then the legend of its edges. */
export function lineageLines(tree: LineageNode, analysis: Analysis, focus: string): string[] {
	return [
		...renderTree(tree, analysis, focus),
		'',
		'Edges: [compression] continuation · [branch] /branch · [reset] reset ' +
			'successor · [delegate] delegate/subagent · [repair] adopted by ' +
			'repair-routing',
	];
}
