/**
 * Class 7 (truthful exits and one clear line), issue #28 point 9: the operator's view's small
 * untruths. `hfx audit show|verify --json` on a home with no audit trail: refused (exit 2, one
 * line on stderr) with its {error} document on stdout, never an empty stdout.
 */
import path from 'node:path';
import {home} from '../fixtures.js';
import type {Fault, RunResult, Scene, TempSpace} from '../types.js';
import {refused} from './kit.js';

function kind(id: string, notes: string, setup: (t: TempSpace) => Promise<Scene> | Scene): Fault {
	return {id, cls: 7, outcome: 'refused', notes, setup};
}

/** stdout is one JSON document whose error names the missing trail. */
function errorDocument(trail: string) {
	return (run: RunResult): string | null => {
		try {
			const doc = JSON.parse(run.stdout) as {error?: {kind?: string; file?: string}};
			return doc.error?.kind === 'not-found' && doc.error.file === trail
				? null
				: `stdout's JSON names no missing trail: ${run.stdout.slice(0, 200)}`;
		} catch {
			return `stdout is not one JSON document: ${JSON.stringify(run.stdout.slice(0, 200))}`;
		}
	};
}

export const OPERATOR_VIEW: Fault[] = [
	kind(
		'view-audit-json-no-trail',
		'`audit show --json` and `audit verify --json` with no trail: exit 2, one line, the {error} document on stdout',
		async t => {
			const h = await home(t.dir('home'));
			const trail = path.join(h.root, 'hfx-audit.jsonl');
			return {
				evidence: [h.root],
				steps: ['show', 'verify'].map(action =>
					refused(['audit', action, '--db', h.db, '--json'], /no audit trail here/, {check: errorDocument(trail)}),
				),
			};
		},
	),
];
