/**
 * `hfx lineage ID`: where a session came from and what continued it.
 */
import type {Analysis} from '../forensics/analyze.js';
import {type LineageNode, ancestors, flattenTree, lineageTree} from '../forensics/lineage.js';
import {statusIndex, statusOf, STATUS_GLYPH} from '../forensics/status.js';
import {resolutionProblem, resolveSessionId} from '../forensics/resolve.js';
import {inWindow, lastActive} from '../forensics/time.js';
import {FailClosed, type ExitCode} from '../errors.js';
import {type GlobalFlags, type Io, emit, guarded, loadOne} from './context.js';
import {utc} from '../text/format.js';

export type LineageFlags = GlobalFlags & {id: string};

function findSession(analysis: Analysis, id: string, file: string): string {
	const r = resolveSessionId(analysis.byId.keys(), id);
	if (r.ok) {
		return r.id;
	}

	throw new FailClosed({
		file,
		kind: 'no-such-session',
		reason: resolutionProblem(r),
		next: 'list ids with: hfx sessions',
		exitCode: 2,
	});
}

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

export function renderTree(node: LineageNode, analysis: Analysis, focus: string): string[] {
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

export async function runLineage(flags: LineageFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, () => {
		const {result} = loadOne(flags, io);
		const {analysis} = result;
		const id = findSession(analysis, flags.id, result.facts.path);
		const tree = lineageTree(id, analysis.lineage);
		const chain = ancestors(id, analysis.lineage);
		emit(io, flags, {
			json: () => ({
				database: result.facts.path,
				owner: result.facts.owner,
				ownerSource: result.facts.ownerSource,
				ruleSet: result.facts.ruleSet,
				sessionId: id,
				ancestors: chain.map(e => ({id: e.parentId, edgeKind: e.kind, via: e.via})),
				tree: nodeJson(tree, analysis),
			}),
			text: () => [
				...renderTree(tree, analysis, id),
				'',
				'Edges: [compression] continuation · [branch] /branch · [reset] reset ' +
					'successor · [delegate] delegate/subagent · [repair] adopted by ' +
					'repair-routing',
			],
		});
		return 0;
	});
}
