/**
 * What `hfx lineage ID` prints (report/sessions/lineage.ts): the family tree with box-drawing prefixes, each
 * edge's kind, the status glyph, the focus marked, a parent not in the store said; and the --json
 * document with the ancestors nearest first and the tree.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {ancestors, lineageTree} from '../../../source/forensics/lineage/lineage.js';
import {lineageJson, lineageLines} from '../../../source/report/sessions/lineage.js';
import {databaseFacts} from '../../helpers/database-facts.js';
import {T0, session, snapshot} from '../../helpers/records.js';

const ROOT = session({id: 'root-1', source: 'cli', endReason: 'compression'});
const CONT = session({id: 'cont-1', source: 'cli', parentSessionId: 'root-1', startedAtRaw: T0 + 120});
const BRANCH = session({
	id: 'branch-1',
	source: 'cli',
	parentSessionId: 'root-1',
	branchedFrom: 'root-1',
	startedAtRaw: T0 + 200,
});
const LOST = session({id: 'child-of-gone', source: 'cli', parentSessionId: 'gone-1', startedAtRaw: T0 + 300});
const analysis = analyze(snapshot([ROOT, CONT, BRANCH, LOST]));

describe('lineageLines', () => {
	it('draws the tree from its root with each edge kind and glyph, marks the focus, then the legend', () => {
		const lines = lineageLines(lineageTree('cont-1', analysis.lineage), analysis, 'cont-1');
		expect(lines).toEqual([
			'· root-1  cli  no key  2023-11-14 22:13 → 2023-11-14 22:14  compression',
			'├─ [compression] ● cont-1  cli  no key  2023-11-14 22:15 → 2023-11-14 22:16  live  ◀',
			'└─ [branch] ● branch-1  cli  no key  2023-11-14 22:16 → 2023-11-14 22:17  live',
			'',
			'Edges: [compression] continuation · [branch] /branch · [reset] reset successor · ' +
				'[delegate] delegate/subagent · [repair] adopted by repair-routing',
		]);
	});

	it('says a parent that is not in this store', () => {
		const lines = lineageLines(lineageTree('child-of-gone', analysis.lineage), analysis, 'child-of-gone');
		expect(lines[0]).toBe('? gone-1  (not in this store)');
		expect(lines[1]).toMatch(/^└─ \[\w+\] ● child-of-gone {2}cli .* {2}◀$/);
	});
});

describe('lineageJson', () => {
	it('names the store and the session, its ancestors nearest first and the tree', () => {
		const chain = ancestors('cont-1', analysis.lineage);
		const doc = lineageJson(databaseFacts(), 'cont-1', chain, lineageTree('cont-1', analysis.lineage), analysis);
		expect(doc).toMatchObject({
			database: '/home/u/.hermes/state.db',
			owner: 'default',
			ruleSet: 'v30',
			sessionId: 'cont-1',
			ancestors: [{id: 'root-1', edgeKind: 'compression', via: 'parent_session_id'}],
		});
		expect(doc.tree).toEqual({
			id: 'root-1',
			present: true,
			edgeKind: null,
			edgeRule: null,
			source: 'cli',
			sessionKey: null,
			endReason: 'compression',
			startedAt: T0,
			children: [
				expect.objectContaining({id: 'cont-1', present: true, edgeKind: 'compression', children: []}),
				expect.objectContaining({id: 'branch-1', edgeKind: 'branch', edgeRule: 'model_config._branched_from'}),
			],
		});
	});

	it('marks a node not in the store as absent, with nulls', () => {
		const tree = lineageTree('child-of-gone', analysis.lineage);
		const doc = lineageJson(databaseFacts(), 'child-of-gone', [], tree, analysis);
		expect(doc.tree).toMatchObject({
			id: 'gone-1',
			present: false,
			source: null,
			sessionKey: null,
			endReason: null,
			startedAt: null,
		});
		expect(doc.ancestors).toEqual([]);
	});
});
