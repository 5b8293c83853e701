/**
 * `hfx scan --json` (report/analysis/scan-json.ts): an orphan's and a chat's shape, a store's document (the
 * facts, the rules, the summary counts, every list), a store that could not be read, and the
 * document of several stores (the first at the top, the others under `profiles`).
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {ruleSetJson} from '../../../source/report/analysis/rule-set-lines.js';
import {
	type PendingStore,
	failedJson,
	orphanJson,
	routingJson,
	scanJson,
	scanJsonThen,
	storeJson,
} from '../../../source/report/analysis/scan-json.js';
import {jsonChunks} from '../../../source/text/json-chunks.js';
import {safeJson} from '../../../source/text/sanitize.js';
import {databaseFacts} from '../../helpers/database-facts.js';
import {T0, dmKey, routingEntry, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const ZOMBIE = session({
	id: 'zombie-0001',
	sessionKey: K,
	userId: 'u1',
	chatId: '42',
	chatType: 'dm',
	startedAtRaw: T0 - 3600,
	newestMessageAt: T0,
});
const ORPHAN = session({id: 'orphan-0001', startedAtRaw: T0 + 60, newestMessageAt: T0 + 86_400, messageRows: 12});
const analysis = analyze(snapshot([ZOMBIE, ORPHAN], {routing: [routingEntry(K, 'zombie-0001')]}));
const healthy = analyze(snapshot([ZOMBIE], {routing: [routingEntry(K, 'zombie-0001')]}));
const REFUSAL = new FailClosed({file: '/p/state.db', kind: 'zero-byte-main-file', reason: 'empty', next: 'copy'});

describe('orphanJson and routingJson', () => {
	it("carry an orphan's verdict and a chat's restart resolution with its candidates", () => {
		expect(orphanJson(analysis.orphans[0]!)).toMatchObject({
			orphanId: 'orphan-0001',
			source: 'telegram',
			messageCount: 12,
			verdict: 'adoptable',
			evidence: 'contiguity',
			donorId: 'zombie-0001',
			sessionKey: K,
			reasonKind: null,
			afterUpgrade: null,
		});
		expect(routingJson(analysis.routing[0]!)).toMatchObject({
			sessionKey: K,
			restartResolvesTo: 'zombie-0001',
			newestActivityIn: 'orphan-0001',
			rollbackRisk: true,
			routingEntry: 'zombie-0001',
			resolvedVia: 'routing-entry',
			ruleSet: 'v30',
			newestActivityAt: T0 + 86_400,
			resolvesToActivityAt: T0,
			afterUpgrade: null,
			candidates: [],
		});
	});
});

describe('storeJson', () => {
	it('counts what it found in its summary and says the store is not healthy', () => {
		const facts = databaseFacts({sessionCount: 2});
		const doc = storeJson(facts, analysis);
		expect(doc.database).toBe(facts);
		expect(doc.rules).toEqual(ruleSetJson(facts, null));
		expect(doc.summary).toEqual({
			sessions: 2,
			chats: 1,
			orphans: 1,
			adoptable: 1,
			refused: 0,
			listedRefusedLocal: 0,
			rolledBack: 0,
			noHistoryEachTurn: 0,
			rollbackRisks: 1,
			repairRoutingCrashes: false,
			changesAfterUpgrade: 0,
			missingColumns: [],
			healthy: false,
		});
		expect(doc.orphans.map(o => o.orphanId)).toEqual(['orphan-0001']);
		expect(doc.routing).toEqual([routingJson(analysis.routing[0]!, analysis.upgradeChanges)]);
		expect(doc.afterUpgrade).toBeNull();
		expect(doc.places).toBeNull();
	});

	it('says a store with nothing wrong is healthy', () => {
		expect(storeJson(databaseFacts({sessionCount: 1}), healthy).summary).toMatchObject({healthy: true, orphans: 0});
	});
});

describe('failedJson and scanJson', () => {
	it('names a store that could not be read and its refusal', () => {
		expect(failedJson({path: '/p/state.db', label: 'work'}, REFUSAL)).toEqual({
			database: {path: '/p/state.db', label: 'work'},
			error: {file: '/p/state.db', kind: 'zero-byte-main-file', reason: 'empty', next: 'copy'},
		});
	});

	it('puts the first store at the top, the others under profiles, and the exit code last', () => {
		const one = scanJson([{ok: true, facts: databaseFacts(), analysis: healthy}], 0);
		expect(one).toEqual({...storeJson(databaseFacts(), healthy), exitCode: 0});
		expect(Object.keys(one)).not.toContain('profiles');
		const many = scanJson(
			[
				{ok: true, facts: databaseFacts(), analysis},
				{ok: false, location: {path: '/p/state.db', label: 'work'}, error: REFUSAL},
			],
			2,
		);
		expect(many).toMatchObject({exitCode: 2, summary: {orphans: 1}});
		expect(many.profiles).toEqual([failedJson({path: '/p/state.db', label: 'work'}, REFUSAL)]);
	});
});

describe('scanJsonThen', () => {
	const work = {path: '/p/state.db', label: 'work'};
	const stores: PendingStore[] = [
		{ok: true, facts: databaseFacts(), buildRules: null, analysis: () => analysis},
		{ok: false, location: work, error: REFUSAL},
		{ok: true, facts: databaseFacts({sessionCount: 1}), buildRules: null, analysis: () => healthy},
	];

	it('writes the bytes of scanJson, for one store and for several', () => {
		const whole = scanJson(
			[
				{ok: true, facts: databaseFacts(), analysis},
				{ok: false, location: work, error: REFUSAL},
				{ok: true, facts: databaseFacts({sessionCount: 1}), analysis: healthy},
			],
			2,
		);
		expect(
			[
				...jsonChunks(
					scanJsonThen(
						3,
						i => stores[i]!,
						() => 2,
					),
				),
			].join(''),
		).toBe(safeJson(whole, 2));
		const one = scanJson([{ok: true, facts: databaseFacts(), analysis}], 1);
		expect(
			[
				...jsonChunks(
					scanJsonThen(
						1,
						i => stores[i]!,
						() => 1,
					),
				),
			].join(''),
		).toBe(safeJson(one, 2));
	});

	it('reads each store, runs its analysis and asks for the exit code only when the writer reaches them', () => {
		const events: string[] = [];
		const doc = scanJsonThen(
			2,
			i => {
				events.push(`read ${i}`);
				const store = stores[i]!;
				if (!store.ok) {
					return store;
				}

				return {
					...store,
					analysis: () => {
						events.push(`analysis ${i}`);
						return store.analysis();
					},
				};
			},
			() => {
				events.push('exit code');
				return 2;
			},
		);
		expect(events).toEqual(['read 0']);
		// Each piece with how much had happened when it was made.
		const pieces: Array<{piece: string; events: number}> = [];
		for (const piece of jsonChunks(doc)) {
			pieces.push({piece, events: events.length});
		}

		const beforeAnalysis = pieces
			.filter(p => p.events === 1)
			.map(p => p.piece)
			.join('');
		expect(beforeAnalysis).toContain('"rules"');
		expect(beforeAnalysis).not.toContain('"summary"');
		expect(events).toEqual(['read 0', 'analysis 0', 'read 1', 'exit code']);
	});
});
