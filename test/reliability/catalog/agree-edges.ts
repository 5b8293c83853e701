/**
 * Class 7 (truthful exits), issue #27 point 1: the edges where hfx disagreed with the real Hermes
 * code, on the stores the real v25 code judged (test/fixtures/hermes-agree-edges). Where current
 * Hermes' own repair-routing fails, every repair is refused in one line with nothing written; a
 * store whose repair-routing fails on a row without messages is a finding; an --apply that
 * committed but leaves a restart resuming another row exits 1, never 2; '' is no chat.
 */
import fs from 'node:fs';
import path from 'node:path';
import {ROOT} from '../run-hfx.js';
import type {Fault, Scene, TempSpace} from '../types.js';
import {finding, refused, repairWrites} from './kit.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/hermes-agree-edges');

function kind(id: string, outcome: Fault['outcome'], notes: string, setup: (t: TempSpace) => Scene): Fault {
	return {id, cls: 7, outcome, notes, setup};
}

/** A writable copy of one case's store in a folder of its own. */
function copy(t: TempSpace, name: string): {dir: string; db: string} {
	const dir = t.dir('store');
	const db = path.join(dir, 'state.db');
	fs.copyFileSync(path.join(FIXTURE, name, 'state.db'), db);
	fs.chmodSync(db, 0o644);
	return {dir, db};
}

const TYPE_ERROR = /TypeError.*B_text/;

export const AGREE_EDGES: Fault[] = [
	kind(
		'agree-repair-current-crash',
		'refused',
		"current Hermes' own repair-routing raises TypeError on a TEXT " +
			"started_at: the dry run, --apply --yes and an operator's --donor are " +
			'each refused in one line, nothing written',
		t => {
			const {dir, db} = copy(t, 'text-started-at');
			return {
				evidence: [dir],
				steps: [
					refused(['repair', '--db', db], TYPE_ERROR),
					refused(['repair', '--apply', '--yes', '--db', db], TYPE_ERROR),
					refused(['repair', '--only', 'B_orphan', '--donor', 'B_donor', '--db', db], TYPE_ERROR),
				],
			};
		},
	),
	kind(
		'agree-scan-json-no-messages',
		'finding',
		"v25's repair-routing fails on an empty model_config of a keyless row " +
			'with no messages: scan says so (exit 1), nothing written',
		t => {
			const {dir, db} = copy(t, 'json-empty-no-messages');
			return {evidence: [dir], steps: [finding(['scan', '--db', db], {match: /malformed JSON[\s\S]*A_empty/})]};
		},
	),
	kind(
		'agree-apply-finding-remains',
		'finding',
		'an adoption after which a restart still resumes another row of the ' +
			'chat: committed, exit 1 naming that row and why (exit 2 stays for ' +
			'nothing written)',
		t => {
			const {dir, db} = copy(t, 'finding-remains');
			return {
				evidence: [dir],
				mayWrite: repairWrites(db),
				steps: [finding(['repair', '--apply', '--yes', '--db', db], {match: /still resumes D_other: exact-key/})],
			};
		},
	),
	kind(
		'agree-empty-key-no-chat',
		'refused',
		"a row keyed '' is no chat: `routing ''` is refused as such, in one line",
		t => {
			const {dir, db} = copy(t, 'listed');
			return {evidence: [dir], steps: [refused(['routing', '', '--db', db], /empty session key is no chat/)]};
		},
	),
];
