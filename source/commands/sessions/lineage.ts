/**
 * `hfx lineage ID`: where a session came from and what continued it.
 */
import type {Analysis} from '../../forensics/analysis/analyze.js';
import {ancestors, lineageTree} from '../../forensics/lineage/lineage.js';
import {resolutionProblem, resolveSessionId} from '../../forensics/resolve.js';
import {lineageJson, lineageLines} from '../../report/sessions/lineage.js';
import {FailClosed, type ExitCode} from '../../ground/errors.js';
import {type GlobalFlags, type Io, emit, guarded, loadOne} from '../context.js';

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

export async function runLineage(flags: LineageFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, () => {
		const {result} = loadOne(flags, io);
		const {analysis} = result;
		const id = findSession(analysis, flags.id, result.facts.path);
		const tree = lineageTree(id, analysis.lineage);
		const chain = ancestors(id, analysis.lineage);
		emit(io, flags, {
			json: () => lineageJson(result.facts, id, chain, tree, analysis),
			text: () => lineageLines(tree, analysis, id),
		});
		return 0;
	});
}
