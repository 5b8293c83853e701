/**
 * `hfx diff A B`: what changed between two moments of a store (issue #24 point 4). A and B are any
 * two of a live store (a state.db or a home), an archive (zip, tar, tar.gz), a quick snapshot, a
 * pre-update emergency snapshot or a retired-WAL capture. Each is read read-only: the live store
 * through readStore (in place, a stopped or crashed one too: never a copy of it), every other image
 * from a private temp copy (commands/shared/image-sides.ts), analysed as `hfx scan` would, then
 * compared (forensics/analysis/diff.ts). Exit 1 when a chat's restart target changed or a rollback
 * happened between A and B, 0 otherwise, 2 refused.
 */
import type {ExitCode} from '../../ground/errors.js';
import {diffHasFindings} from '../../forensics/analysis/diff.js';
import {diffJson, diffLines} from '../../report/analysis/diff.js';
import {type GlobalFlags, type Io, emit, guarded} from '../context.js';
import {diffPair} from '../shared/image-sides.js';

export type DiffFlags = GlobalFlags & {a: string; b: string};

export async function runDiff(flags: DiffFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, async () => {
		const {sides, diff} = await diffPair(flags.a, flags.b, flags);
		emit(io, flags, {json: () => diffJson(sides, diff), text: () => diffLines(sides, diff)});
		return diffHasFindings(diff) ? 1 : 0;
	});
}
