/**
 * A verification's verdicts (source/backup/verify/report.ts): a report's status and exit code, a
 * database check judged against the manifest's record, the member policy's findings and an
 * archive without a Hermes store as problems. Pure: plain inputs, exact outputs.
 */
import {describe, expect, it} from 'vitest';
import type {DbCheck} from '../../../source/backup/check/db-check.js';
import type {Manifest} from '../../../source/backup/manifest.js';
import {
	type DbReport,
	type ReportBase,
	finish,
	judgeDatabase,
	noStoreProblems,
	onlyNoStore,
	policyProblems,
} from '../../../source/backup/verify/report.js';

const CHECK: DbCheck = {
	ok: true,
	integrity: ['ok'],
	counts: {sessions: 2, messages: 7},
	schemaVersion: 30,
	pageSize: 4096,
	pageCount: 10,
	freelistCount: 0,
	ms: 12.6,
};

type DbRecord = Manifest['databases'][number];
/** The fields judgeDatabase reads of a manifest's database record. */
const RECORD = {
	path: 'state.db',
	integrity: 'ok',
	counts: {sessions: 2, messages: 7},
	schemaVersion: 30,
} as Partial<DbRecord> as DbRecord;

function base(problems: ReportBase['problems'] = [], databases: DbReport[] = []): ReportBase {
	return {
		path: '/a.zip',
		kind: 'zip',
		manifest: null,
		sealed: true,
		seal: null,
		members: 1,
		bytes: 1,
		problems,
		databases,
		notes: [],
	};
}

describe('judgeDatabase', () => {
	it('a sound check that agrees with the manifest is ok, with what the manifest expected', () => {
		expect(judgeDatabase('state.db', CHECK, RECORD, 4096)).toEqual({
			path: 'state.db',
			ok: true,
			integrity: ['ok'],
			counts: {sessions: 2, messages: 7},
			schemaVersion: 30,
			expected: {counts: {sessions: 2, messages: 7}, schemaVersion: 30},
			problems: [],
			walBytes: 4096,
			checkMs: 13,
		});
	});

	it('without a manifest record only the integrity check counts', () => {
		const r = judgeDatabase('x.db', {...CHECK, ok: false, integrity: ['a', 'b', 'c', 'd']}, undefined);
		expect(r.expected).toBeNull();
		expect(r.walBytes).toBeNull();
		expect(r.problems).toEqual(['integrity_check: a; b; c']);
		expect(r.ok).toBe(false);
	});

	it('says each way it differs from the record: integrity when taken, counts, schema version', () => {
		const r = judgeDatabase(
			'state.db',
			{...CHECK, counts: {sessions: 2, messages: 6}, schemaVersion: 29},
			{
				...RECORD,
				integrity: 'row 3 missing from index',
			},
		);
		expect(r.ok).toBe(false);
		expect(r.problems).toEqual([
			'the backup recorded this database as failing its check when it was taken (row 3 missing from index)',
			'table messages has 6 rows, expected 7',
			'schema version is 29, the manifest says 30',
		]);
	});
});

describe('finish', () => {
	it('sound is exit 0, any problem or bad database damaged (1), unreadable 2 whatever else', () => {
		const bad = judgeDatabase('x.db', {...CHECK, ok: false}, undefined);
		const problem = {where: 'member "a"', what: 'CRC-32 mismatch'};
		expect([finish(base(), 0).status, finish(base(), 0).exitCode]).toEqual(['sound', 0]);
		expect([finish(base([problem]), 0).status, finish(base([problem]), 0).exitCode]).toEqual(['damaged', 1]);
		expect(finish(base([], [bad]), 0).exitCode).toBe(1);
		expect(finish(base([], [judgeDatabase('x.db', CHECK, undefined)]), 0).exitCode).toBe(0);
		expect([finish(base(), 0, true).status, finish(base(), 0, true).exitCode]).toEqual(['unreadable', 2]);
	});

	it('keeps the report and adds the time since it started', () => {
		const r = finish(base(), performance.now() - 50);
		expect(r.path).toBe('/a.zip');
		expect(r.ms).toBeGreaterThanOrEqual(50);
		expect(r.ms).toBeLessThan(10_000);
	});
});

describe('policyProblems and noStoreProblems', () => {
	it('a sidecar is a note for a restore to fold; anything else the policy finds is refused', () => {
		expect(
			policyProblems([
				{index: 2, name: 'state.db-wal', kind: 'sidecar', what: 'a SQLite sidecar'},
				{index: 0, name: '../x', kind: 'refused', what: 'unsafe member: a ".." path'},
			]),
		).toEqual([
			{
				where: 'member #3 "state.db-wal"',
				what: "a SQLite sidecar (from a tar, a restore folds a -wal's commits into its database)",
				sidecar: true,
			},
			{where: 'member #1 "../x"', what: 'unsafe member: a ".." path; a restore refuses this archive'},
		]);
	});

	it('an archive with no state.db anywhere is one noStore problem; a profile store is a store', () => {
		expect(noStoreProblems(['config.yaml', 'state.db.bak'])).toEqual([
			{
				where: 'archive',
				what: 'no Hermes store in it (no state.db and no profiles/*/state.db): not a backup of a Hermes home',
				noStore: true,
			},
		]);
		expect(noStoreProblems([])).toHaveLength(1);
		expect(noStoreProblems(['profiles/w/state.db'])).toEqual([]);
		expect(noStoreProblems(['.hermes/state.db', '.hermes/config.yaml'])).toEqual([]);
	});
});

describe('onlyNoStore', () => {
	const noStore = noStoreProblems([])[0]!;
	it('is true only when every problem is the missing store and every database is sound', () => {
		expect(onlyNoStore({problems: [noStore], databases: []})).toBe(true);
		expect(onlyNoStore({problems: [], databases: []})).toBe(false);
		expect(onlyNoStore({problems: [noStore, {where: 'a', what: 'b'}], databases: []})).toBe(false);
		const bad = judgeDatabase('x.db', {...CHECK, ok: false}, undefined);
		expect(onlyNoStore({problems: [noStore], databases: [bad]})).toBe(false);
	});
});
