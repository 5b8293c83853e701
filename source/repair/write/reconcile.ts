/**
 * Settles a crash window: an apply or undo whose INTENT is in the audit trail but whose OUTCOME is
 * not (the process was SIGKILLed or lost power between the two). The store says what happened:
 * every planned column holds its after-value → "applied (reconciled)", so the repair can be undone;
 * every one its before-value → "not applied (reconciled)"; anything else → "undetermined". Reads
 * the store read-only; appends to the trail only when its chain is intact, and never for an intent
 * whose process still runs.
 */
import path from 'node:path';
import {errorMessage} from '../../ground/errors.js';
import {isSameProcessAlive} from '../../ground/liveness.js';
import {toolVersion} from '../../ground/version.js';
import {readStore} from '../../store/open/immutable-read.js';
import type {ReadOnlyStore} from '../../store/open/open.js';
import {type AuditEntry, appendAudit, auditPathFor, readAudit, verifyAudit} from '../../store/audit-trail.js';
import {toValue} from '../plan/plan.js';
import type {ChangeRecord} from './write-run.js';
import {plural} from '../../text/format.js';
import {testMark} from '../../ground/test-pause.js';

export type StoreState = 'applied' | 'not-applied' | 'undetermined';

export type Settlement = {intent: AuditEntry; state: StoreState; detail: string; outcome: AuditEntry | null};

/** Intents that no outcome entry names. */
export function pendingIntents(entries: readonly AuditEntry[]): AuditEntry[] {
	const settled = new Set(entries.map(e => e.intent).filter(i => typeof i === 'number'));
	return entries.filter(e => e.phase === 'intent' && !settled.has(e.seq));
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** What the store holds for an intent's planned changes. */
function stateOf(store: ReadOnlyStore, changes: readonly ChangeRecord[]): {state: StoreState; detail: string} {
	let after = 0;
	let before = 0;
	const off: string[] = [];
	for (const c of changes) {
		const row = store
			.prepare(`SELECT "${c.column.replaceAll('"', '""')}" AS v FROM sessions WHERE id = ?`)
			.get(c.sessionId) as {v: unknown} | undefined;
		const now = row ? toValue(row.v) : undefined;
		after += same(now, c.after) ? 1 : 0;
		before += same(now, c.before) ? 1 : 0;
		if (!same(now, c.after) && !same(now, c.before)) {
			off.push(`${c.sessionId}.${c.column}`);
		}
	}

	if (changes.length > 0 && after === changes.length) {
		return {state: 'applied', detail: `all ${changes.length} planned columns hold the values it writes`};
	}

	if (before === changes.length) {
		return {state: 'not-applied', detail: `all ${changes.length} planned columns still hold their values from before`};
	}

	return {
		state: 'undetermined',
		detail:
			`${off.length > 0 ? off.join(', ') : 'some columns'} hold neither the ` +
			`value before nor the one it writes (the store moved on since)`,
	};
}

function readStates(
	dbPath: string,
	intents: readonly AuditEntry[],
): Array<{state: StoreState; detail: string; sqliteVersion: string}> {
	// A stopped store is read in place as an immutable file, never copied.
	return readStore(dbPath, store =>
		store.read(() =>
			intents.map(i => ({
				...stateOf(store, (i.changes as ChangeRecord[] | undefined) ?? []),
				sqliteVersion: store.sqliteVersion(),
			})),
		),
	);
}

const LABEL: Record<StoreState, string> = {
	applied: 'applied (reconciled)',
	'not-applied': 'not applied (reconciled)',
	undetermined: 'undetermined (reconciled)',
};

function outcomeOf(
	intent: AuditEntry,
	state: StoreState,
	detail: string,
	sqliteVersion: string,
	argv: string[],
): Omit<AuditEntry, 'seq' | 'prev'> {
	const {seq, prev, time, tool, phase, pid, pidStart, changes, sqliteVersion: _v, argv: _a, ...planned} = intent;
	return {
		...planned,
		time: new Date().toISOString(),
		tool: {name: 'hfx', version: toolVersion()},
		sqliteVersion,
		argv,
		phase: 'outcome',
		intent: seq,
		reconciled: true,
		preconditions: [],
		changes: state === 'applied' ? changes : [],
		result: state,
		reason:
			`${LABEL[state]}: the ${intent.mode} of ${time} (pid ${String(pid)}) ` +
			`ended between its intent and its outcome; ${detail}`,
		exitCode: null,
	};
}

/** The line an operator sees for one settlement. */
export function settlementLine(auditPath: string, s: Settlement): string {
	const head = `hfx: ${auditPath}: entry ${s.intent.seq}: an interrupted ${s.intent.mode} (${s.intent.time})`;
	if (!s.outcome) {
		return (
			`${head} awaits reconciliation: the store shows ` +
			`it ${LABEL[s.state].replace(' (reconciled)', '')}; hfx repair ` +
			`--apply/--undo or hfx audit verify records it`
		);
	}

	const undo =
		s.state === 'applied' && s.intent.mode === 'apply'
			? ` (undo with: hfx repair --undo ${s.outcome.seq} --db ${s.intent.database})`
			: '';
	return `${head} is recorded as ${LABEL[s.state]} in entry ${s.outcome.seq}${undo}`;
}

/**
 * Reconciles the pending intents of the trail beside `dbPath` (or `auditPath`). With `write`
 * false (the dry run) it only says what it would record. Never throws for the store: an intent
 * whose store cannot be read stays pending, with a warning.
 */
export function reconcileAudit(options: {
	dbPath?: string;
	auditPath?: string;
	argv: string[];
	write: boolean;
	warn: (line: string) => void;
}): Settlement[] {
	testMark('reconcile');
	const auditPath = options.auditPath ?? auditPathFor(options.dbPath!);
	const pending = pendingIntents(readAudit(auditPath)).filter(
		i => !isSameProcessAlive(Number(i.pid), typeof i.pidStart === 'string' ? i.pidStart : null),
	);
	if (pending.length === 0) {
		return [];
	}

	if (options.write && !verifyAudit(auditPath).ok) {
		options.warn(
			`hfx: ${auditPath}: ${plural(pending.length, 'interrupted write')} not ` +
				`reconciled: the hash chain is broken (hfx audit verify says where)`,
		);
		return [];
	}

	const settled: Settlement[] = [];
	for (const db of new Set(pending.map(i => path.resolve(i.database)))) {
		const intents = pending.filter(i => path.resolve(i.database) === db);
		let states: ReturnType<typeof readStates>;
		try {
			states = readStates(db, intents);
		} catch (error) {
			options.warn(
				`hfx: ${db}: ${plural(intents.length, 'interrupted write')} could not be ` +
					`reconciled: the store cannot be read (${errorMessage(error)})`,
			);
			continue;
		}

		for (const [i, intent] of intents.entries()) {
			const {state, detail, sqliteVersion} = states[i]!;
			// Another run may have settled it meanwhile (two commands at once): re-read right before appending.
			if (options.write && !pendingIntents(readAudit(auditPath)).some(p => p.seq === intent.seq)) {
				continue;
			}

			const outcome = options.write
				? appendAudit(auditPath, outcomeOf(intent, state, detail, sqliteVersion, options.argv))
				: null;
			const s = {intent, state, detail, outcome};
			options.warn(settlementLine(auditPath, s));
			settled.push(s);
		}
	}

	return settled;
}
