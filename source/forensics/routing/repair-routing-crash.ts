/**
 * Where a generation's own `hermes sessions repair-routing` fails before it lists anything, as its
 * real code fails (checked by running it: test/fixtures/hermes-agree-edges). Two ways:
 *
 * - v25's orphan query reads model_config with a throwing json_extract. SQLite evaluates it once a
 *   row is keyless and not a tool row, before the EXISTS on its messages: one such row whose
 *   model_config is not JSON (an empty string included), with messages or without, fails the scan
 *   with `sqlite3.OperationalError: malformed JSON`. v30 guards it with json_valid.
 * - v25 and v30 then compute `(started_at or 0) - gap` in Python for each listed row with no parent
 *   (the contiguity evidence): a started_at that is TEXT (or a BLOB), and not empty, raises
 *   `TypeError`, and the command prints nothing and writes nothing.
 *
 * Pure: rows in, the failing row out.
 */
import type {Rules} from '../generations.js';
import {isOrphanCandidate} from './orphans.js';
import {compareCells} from '../time.js';
import type {SessionRecord} from '../types.js';

/** Where the generation's own `repair-routing` fails before listing anything. */
export type RepairRoutingCrash = {sessionId: string; error: string; note: string};

/** Does v25's throwing json_extract fail on this row (keyless, not a tool row, model_config not JSON)? */
function failsJsonExtract(s: SessionRecord, rules: Rules): boolean {
	return rules.throwingJsonExtract && s.modelConfigInvalid && s.sessionKey === null && s.source !== 'tool';
}

/** Python's `(cell or 0) - gap`: which operand type raises, or null when the cell is a number, NULL or empty. */
function subtractionFails(cell: SessionRecord['startedAtRaw']): 'str' | 'bytes' | null {
	if (typeof cell === 'string') {
		return cell === '' ? null : 'str';
	}

	return Buffer.isBuffer(cell) && cell.length > 0 ? 'bytes' : null;
}

/** Does the contiguity window's arithmetic fail on this listed row (no parent, a started_at that is not a number)? */
function failsWindow(s: SessionRecord): 'str' | 'bytes' | null {
	return s.parentSessionId ? null : subtractionFails(s.startedAtRaw);
}

/**
 * Can this one row make the generation's repair-routing fail? (The live view re-analyses in full when a changed row
 * can.)
 */
export function mayFailRepairRouting(s: SessionRecord, rules: Rules): boolean {
	return rules.hasRepairRouting && (failsJsonExtract(s, rules) || (isOrphanCandidate(s) && failsWindow(s) !== null));
}

/** The first row in SQLite's order of started_at (numbers, then TEXT, then BLOBs), then by id. */
function first(rows: SessionRecord[]): SessionRecord | null {
	return rows.sort((a, b) => compareCells(a.startedAtRaw, b.startedAtRaw) || (a.id < b.id ? -1 : 1))[0] ?? null;
}

/** The generation's repair-routing failure on these rows, or null when it runs. */
export function repairRoutingCrashOf(sessions: readonly SessionRecord[], rules: Rules): RepairRoutingCrash | null {
	if (!rules.hasRepairRouting) {
		return null;
	}

	const json = first(sessions.filter(s => failsJsonExtract(s, rules)));
	if (json) {
		const cell = json.hasMessageRows
			? 'with messages'
			: 'without messages: the query reads model_config before it looks for messages';
		return {
			sessionId: json.id,
			error: 'sqlite3.OperationalError: malformed JSON',
			note:
				`Hermes ${rules.ruleSet}'s repair-routing reads model_config with a ` +
				`throwing json_extract on every keyless row that is not a tool row, and ` +
				`session ${json.id} (${json.source || 'no source'}, keyless, ${cell}) ` +
				`holds a model_config that is not JSON: the dry run and --apply both ` +
				`stop before listing any orphan`,
		};
	}

	const window = first(sessions.filter(s => isOrphanCandidate(s) && failsWindow(s) !== null));
	if (window) {
		const operand = failsWindow(window)!;
		return {
			sessionId: window.id,
			error: `TypeError: unsupported operand type(s) for -: '${operand}' and 'float'`,
			note:
				`Hermes ${rules.ruleSet}'s repair-routing lists session ${window.id} ` +
				`(${window.source || 'no source'}, keyless, no parent) and places its ` +
				`time window at started_at - gap, but its started_at ` +
				`is ${operand === 'str' ? 'TEXT' : 'a BLOB'} ` +
				`(${JSON.stringify(String(window.startedAtRaw)).slice(0, 40)}): the ` +
				`command raises TypeError, prints nothing and adopts nothing`,
		};
	}

	return null;
}
