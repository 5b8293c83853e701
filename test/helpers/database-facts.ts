/**
 * The facts of a store as loadStore reports them (store/read/load.ts), as a plain value for the
 * pure report tests: a current v30 WAL store of the default profile, read in place in one
 * transaction, unless a test says otherwise.
 */
import type {DatabaseFacts} from '../../source/store/read/load.js';

export function databaseFacts(partial: Partial<DatabaseFacts> = {}): DatabaseFacts {
	return {
		path: '/home/u/.hermes/state.db',
		link: null,
		label: 'default',
		owner: 'default',
		ownerSource: 'the default home (~/.hermes)',
		schemaVersion: 30,
		journalMode: 'wal',
		ruleSet: 'v30',
		ruleSetReason: 'schema_version 30',
		currentRuleSet: 'v30',
		upgrade: null,
		routingScope: null,
		legacyMirror: null,
		openMode: 'in-place',
		openModeReason: 'a process holds the store',
		sizes: {db: 4096, wal: 0, shm: 32_768, journal: null},
		pageSize: 4096,
		readerSqliteVersion: '3.50.0',
		lastWriterSqliteVersion: '3.50.0',
		applicationId: 0,
		dataVersion: 1,
		sessionCount: 0,
		messageHighWater: null,
		readMs: 1,
		consistentSnapshot: true,
		absentColumns: [],
		notes: [],
		...partial,
	};
}
