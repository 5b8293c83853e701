/**
 * The kinds of finding, read from the source of truth (the `kind` union of Finding in
 * source/forensics/finding.ts), not from the table under test: a kind added there without its
 * metric, alert and events fails the tests that use this list.
 */
import fs from 'node:fs';
import path from 'node:path';
import {ROOT} from './writer.js';

export function findingKinds(): string[] {
	const text = fs.readFileSync(path.join(ROOT, 'source/forensics/finding.ts'), 'utf8');
	const type = /export type Finding = \{([\s\S]*?)\n\};/.exec(text)?.[1] ?? '';
	const union = /\bkind:\s*([^;]*);/.exec(type)?.[1] ?? '';
	const kinds = [...union.matchAll(/'([^']+)'/g)].map(m => m[1]!);
	if (kinds.length === 0) {
		throw new Error(
			'no Finding kinds found in source/forensics/finding.ts: the shape of its ' +
				'type changed; update test/helpers/finding-kinds.ts',
		);
	}

	return kinds;
}
