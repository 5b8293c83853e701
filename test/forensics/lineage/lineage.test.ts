/**
 * Lineage edges (docs/hermes-rules.md, lineage: parent_session_id and the model_config markers).
 */
import {describe, expect, it} from 'vitest';
import {
	type LineageNode,
	ancestors,
	buildLineage,
	buildLineageSteps,
	classifyEdge,
	compressionTip,
	lineageTree,
} from '../../../source/forensics/lineage/lineage.js';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {T0, dmKey, indexById, session} from '../../helpers/records.js';

const K = dmKey('42');

const parent = (partial: Partial<SessionRecord> = {}) => session({id: 'p', sessionKey: K, ...partial});
const child = (partial: Partial<SessionRecord> = {}) =>
	session({id: 'c', parentSessionId: 'p', startedAtRaw: T0 + 1000, ...partial});

function kindOf(p: SessionRecord | undefined, c: SessionRecord) {
	return classifyEdge(p, c).kind;
}

/** The tree as nested ids, for readable assertions. */
function shape(node: LineageNode): unknown {
	return node.children.length === 0 ? node.id : {[node.id]: node.children.map(shape)};
}

describe('classifyEdge', () => {
	describe('compression', () => {
		it('is a child of a parent ended with compression', () => {
			expect(classifyEdge(parent({endReason: 'compression'}), child())).toMatchObject({
				kind: 'compression',
				rule: 'parent ended with compression',
			});
		});

		it('is never a tool child', () => {
			expect(kindOf(parent({endReason: 'compression'}), child({source: 'tool'}))).toBe('delegate');
		});

		it.each([
			['branchedFrom', 'branch'],
			['delegateFrom', 'delegate'],
			['resetFrom', 'reset'],
		] as const)('yields to a %s marker', (marker, kind) => {
			expect(kindOf(parent({endReason: 'compression'}), child({[marker]: 'p'}))).toBe(kind);
		});
	});

	describe('branch', () => {
		it('is marked by _branched_from, whatever the parent', () => {
			expect(classifyEdge(parent(), child({branchedFrom: 'p'}))).toMatchObject({
				kind: 'branch',
				rule: 'model_config._branched_from',
			});
			expect(kindOf(undefined, child({branchedFrom: 'p'}))).toBe('branch');
		});

		it("is a child started after its parent ended 'branched'", () => {
			expect(kindOf(parent({endReason: 'branched', endedAtRaw: T0 + 500}), child({startedAtRaw: T0 + 501}))).toBe(
				'branch',
			);
		});

		it('is not a child started at or before the branch point', () => {
			expect(kindOf(parent({endReason: 'branched', endedAtRaw: T0 + 500}), child({startedAtRaw: T0 + 500}))).toBe(
				'delegate',
			);
			expect(kindOf(parent({endReason: 'branched', endedAtRaw: T0 + 500}), child({startedAtRaw: T0 + 100}))).toBe(
				'delegate',
			);
		});

		it('needs usable timestamps on both sides', () => {
			expect(kindOf(parent({endReason: 'branched', endedAtRaw: 'garbage'}), child())).toBe('delegate');
			expect(kindOf(parent({endReason: 'branched', endedAtRaw: T0}), child({startedAtRaw: null}))).toBe('delegate');
		});
	});

	describe('reset', () => {
		it('is marked by _reset_from', () => {
			expect(classifyEdge(parent(), child({resetFrom: 'p'}))).toMatchObject({
				kind: 'reset',
				rule: 'model_config._reset_from',
			});
		});

		it.each(['session_reset', 'session_switch', 'idle', 'daily', 'suspended', 'resume_pending_expired'])(
			'legacy: parent ended %s and the child carries the same key',
			reason => {
				expect(kindOf(parent({endReason: reason}), child({sessionKey: K}))).toBe('reset');
			},
		);

		it('legacy: needs the same, non-empty key', () => {
			expect(kindOf(parent({endReason: 'session_reset'}), child({sessionKey: dmKey('43')}))).toBe('delegate');
			expect(kindOf(parent({endReason: 'session_reset'}), child({sessionKey: null}))).toBe('delegate');
			expect(kindOf(parent({endReason: 'session_reset', sessionKey: ''}), child({sessionKey: ''}))).toBe('delegate');
		});

		it('legacy: needs a reset end reason', () => {
			expect(kindOf(parent({endReason: 'agent_close'}), child({sessionKey: K}))).toBe('delegate');
		});
	});

	describe('delegate', () => {
		it('is marked by _delegate_from', () => {
			expect(classifyEdge(parent(), child({delegateFrom: 'p'}))).toMatchObject({
				kind: 'delegate',
				rule: 'model_config._delegate_from',
			});
		});

		it('is the default for anything else', () => {
			expect(classifyEdge(parent(), child())).toMatchObject({
				kind: 'delegate',
				rule: 'no continuation marker or end reason (delegate/subagent)',
			});
			expect(kindOf(parent({endReason: 'agent_close'}), child())).toBe('delegate');
			expect(kindOf(undefined, child())).toBe('delegate');
		});
	});

	describe('repair', () => {
		it("is a child of a parent superseded_by_repair that carries the parent's key", () => {
			expect(kindOf(parent({endReason: 'superseded_by_repair'}), child({sessionKey: K}))).toBe('repair');
		});

		it('needs the same key', () => {
			expect(kindOf(parent({endReason: 'superseded_by_repair'}), child({sessionKey: dmKey('43')}))).toBe('delegate');
			expect(kindOf(parent({endReason: 'superseded_by_repair', sessionKey: null}), child({sessionKey: null}))).toBe(
				'delegate',
			);
		});
	});
});

describe('buildLineage', () => {
	it('builds an edge from parent_session_id, indexed both ways', () => {
		const rows = [parent({endReason: 'compression'}), child()];
		const lineage = buildLineage(rows);
		expect(lineage.edges).toEqual([
			expect.objectContaining({
				parentId: 'p',
				childId: 'c',
				kind: 'compression',
				via: 'parent_session_id',
				parentMissing: false,
			}),
		]);
		expect(lineage.parentEdge.get('c')?.parentId).toBe('p');
		expect(lineage.children.get('p')?.map(e => e.childId)).toEqual(['c']);
		expect(lineage.parentEdge.has('p')).toBe(false);
	});

	it('flags a parent id that names no row', () => {
		const lineage = buildLineage([child({parentSessionId: 'gone'})]);
		expect(lineage.edges).toEqual([
			expect.objectContaining({parentId: 'gone', childId: 'c', kind: 'delegate', parentMissing: true}),
		]);
	});

	it.each([
		['branchedFrom', 'branch'],
		['resetFrom', 'reset'],
		['delegateFrom', 'delegate'],
	] as const)('builds a marker-only edge from %s when parent_session_id is NULL', (marker, kind) => {
		const rows = [parent(), child({parentSessionId: null, [marker]: 'p'})];
		expect(buildLineage(rows).edges).toEqual([
			expect.objectContaining({parentId: 'p', childId: 'c', kind, via: 'marker', parentMissing: false}),
		]);
	});

	it('prefers parent_session_id over a marker naming another row', () => {
		const rows = [parent(), session({id: 'q'}), child({resetFrom: 'q'})];
		expect(buildLineage(rows).parentEdge.get('c')).toMatchObject({
			parentId: 'p',
			via: 'parent_session_id',
			kind: 'reset',
		});
	});

	it('makes no edge for the __orphaned__ delegate sentinel', () => {
		const rows = [session({id: '__orphaned__'}), child({parentSessionId: null, delegateFrom: '__orphaned__'})];
		const lineage = buildLineage(rows);
		expect(lineage.edges).toEqual([]);
		expect(lineage.parentEdge.has('c')).toBe(false);
	});

	it('makes no edge for a row without parent or marker, nor for a self-parent', () => {
		expect(buildLineage([session({id: 'a'}), session({id: 'b', parentSessionId: 'b'})]).edges).toEqual([]);
	});

	it('uses the given index to find parents', () => {
		const p = parent({endReason: 'compression'});
		const c = child();
		expect(buildLineage([c], indexById([p, c])).edges[0]).toMatchObject({kind: 'compression', parentMissing: false});
	});
});

describe('compressionTip', () => {
	const chain = [
		session({id: 'a', sessionKey: K, endReason: 'compression'}),
		session({id: 'b', sessionKey: K, parentSessionId: 'a', startedAtRaw: T0 + 100, endReason: 'compression'}),
		session({id: 'c', sessionKey: K, parentSessionId: 'b', startedAtRaw: T0 + 200}),
	];

	it('follows a chain of 3 to the live tip', () => {
		const lineage = buildLineage(chain);
		const byId = indexById(chain);
		expect(compressionTip('a', lineage, byId)).toBe('c');
		expect(compressionTip('b', lineage, byId)).toBe('c');
		expect(compressionTip('c', lineage, byId)).toBe('c');
	});

	it('stops on a row that did not end with compression', () => {
		const rows = [
			session({id: 'a', endReason: 'compression'}),
			session({id: 'b', parentSessionId: 'a', startedAtRaw: T0 + 100, endReason: 'agent_close'}),
			session({id: 'c', parentSessionId: 'b', startedAtRaw: T0 + 200}),
		];
		expect(compressionTip('a', buildLineage(rows), indexById(rows))).toBe('b');
	});

	it('stays on a compression parent with no continuation (orphaned compression parent)', () => {
		const rows = [session({id: 'a', endReason: 'compression'})];
		expect(compressionTip('a', buildLineage(rows), indexById(rows))).toBe('a');
	});

	it('does not follow non-compression children (a branch of a compressed row)', () => {
		const rows = [
			session({id: 'a', endReason: 'compression'}),
			session({id: 'b', parentSessionId: 'a', branchedFrom: 'a'}),
		];
		expect(compressionTip('a', buildLineage(rows), indexById(rows))).toBe('a');
	});

	it('does not follow a tool child of a compressed row (not a continuation)', () => {
		const rows = [
			session({id: 'a', endReason: 'compression'}),
			session({id: 'tool-child', source: 'tool', parentSessionId: 'a', startedAtRaw: T0 + 100}),
		];
		expect(compressionTip('a', buildLineage(rows), indexById(rows))).toBe('a');
	});

	it('takes the newest continuation when there are several', () => {
		const rows = [
			session({id: 'a', endReason: 'compression'}),
			session({id: 'older', parentSessionId: 'a', startedAtRaw: T0 + 100}),
			session({id: 'newer', parentSessionId: 'a', startedAtRaw: T0 + 200}),
		];
		expect(compressionTip('a', buildLineage(rows), indexById(rows))).toBe('newer');
	});

	it('returns an unknown id unchanged', () => {
		expect(compressionTip('ghost', buildLineage(chain), indexById(chain))).toBe('ghost');
	});

	it('terminates on a compression cycle', () => {
		const rows = [
			session({id: 'a', parentSessionId: 'b', endReason: 'compression'}),
			session({id: 'b', parentSessionId: 'a', endReason: 'compression'}),
		];
		expect(['a', 'b']).toContain(compressionTip('a', buildLineage(rows), indexById(rows)));
	});
});

describe('ancestors and lineageTree', () => {
	const family = [
		session({id: 'root'}),
		session({id: 'mid', parentSessionId: 'root'}),
		session({id: 'leaf', parentSessionId: 'mid'}),
		session({id: 'sibling', parentSessionId: 'root'}),
	];

	it('lists ancestors from the immediate parent up to the root', () => {
		expect(ancestors('leaf', buildLineage(family)).map(e => e.parentId)).toEqual(['mid', 'root']);
		expect(ancestors('root', buildLineage(family))).toEqual([]);
	});

	it('builds the whole tree from the root, whichever member is asked for', () => {
		const lineage = buildLineage(family);
		const expected = {root: [{mid: ['leaf']}, 'sibling']};
		expect(shape(lineageTree('leaf', lineage))).toEqual(expected);
		expect(shape(lineageTree('sibling', lineage))).toEqual(expected);
		const tree = lineageTree('leaf', lineage);
		expect(tree.edge).toBeUndefined();
		expect(tree.children[0]?.children[0]).toMatchObject({id: 'leaf', depth: 2});
	});

	it('is cycle-safe on a 2-cycle', () => {
		const rows = [session({id: 'a', parentSessionId: 'b'}), session({id: 'b', parentSessionId: 'a'})];
		const lineage = buildLineage(rows);
		expect(ancestors('a', lineage).map(e => e.parentId)).toEqual(['b']);
		expect(ancestors('b', lineage).map(e => e.parentId)).toEqual(['a']);
		expect(shape(lineageTree('a', lineage))).toEqual({b: ['a']});
		expect(shape(lineageTree('b', lineage))).toEqual({a: ['b']});
	});

	it('is cycle-safe on a longer cycle hanging off a chain', () => {
		const rows = [
			session({id: 'x', parentSessionId: 'z'}),
			session({id: 'y', parentSessionId: 'x'}),
			session({id: 'z', parentSessionId: 'y'}),
			session({id: 'tail', parentSessionId: 'x'}),
		];
		const lineage = buildLineage(rows);
		expect(ancestors('tail', lineage).map(e => e.parentId)).toEqual(['x', 'z', 'y']);
		const tree = lineageTree('tail', lineage);
		expect(tree.id).toBe('y');
		const ids: string[] = [];
		const walk = (n: LineageNode) => {
			ids.push(n.id);
			n.children.forEach(walk);
		};

		walk(tree);
		expect(ids.sort()).toEqual(['tail', 'x', 'y', 'z']);
	});

	it('stops at maxNodes', () => {
		const rows = [
			session({id: 'root'}),
			...Array.from({length: 10}, (_, i) => session({id: `c${i}`, parentSessionId: 'root'})),
		];
		const tree = lineageTree('root', buildLineage(rows), 4);
		expect(tree.children).toHaveLength(3);
	});
});

describe('buildLineageSteps (the live view answers keys between its steps, issue #26)', () => {
	it('reads a chunk of sessions a step, one step a chunk, and ends with what buildLineage gives', () => {
		const sessions = Array.from({length: 23}, (_, i) =>
			session({
				id: `s${i}`,
				parentSessionId: i % 3 === 0 ? null : `s${i - 1}`,
				endReason: i % 4 === 0 ? 'compression' : null,
				startedAtRaw: T0 + i,
			}),
		);
		const steps = buildLineageSteps(sessions, undefined, 5);
		let yields = 0;
		let step = steps.next();
		for (; !step.done; step = steps.next()) {
			yields++;
		}

		// 23 sessions, 5 a step: five steps, four yields between them.
		expect(yields).toBe(4);
		expect(step.value.edges.length).toBeGreaterThan(10);
		expect(step.value).toEqual(buildLineage(sessions));
	});
});
