/**
 * The verifiers' temp extraction: its folder (removed on any exit), the refusal up front when it
 * cannot hold the largest database, and a failed write to it reported as this machine's problem.
 */
import fs from 'node:fs';
import {FailClosed, errnoWords, errorCode, errorMessage} from '../../ground/errors.js';
import {ownTempDir} from '../../ground/temps.js';
import type {VerifyOptions} from './report.js';

/** A write to our temp extraction failed: that is this machine's problem, not damage (exit 2). */
export function extractionFailure(dir: string, error: unknown): FailClosed {
	const code = errorCode(error) ?? 'error';
	// The cause in the one errno mapping's words: EFBIG (ulimit -f) is not a full disk.
	const full = code === 'ENOSPC' || code === 'EDQUOT';
	const words = errnoWords(code, errorMessage(error));
	return new FailClosed({
		file: dir,
		kind: full ? 'no-space' : 'temp-write-failed',
		reason:
			`cannot write the temp extraction for the database checks ` +
			`(${code}: ${words.cause}); the archive was not judged`,
		next: full
			? 'free space there or point TMPDIR at a larger folder, then verify again'
			: `${words.next}, then verify again`,
	});
}

/** Refuses up front when the temp folder cannot hold the largest database to check. */
export function assertRoomFor(dir: string, bytes: number): void {
	try {
		const st = fs.statfsSync(dir);
		const free = Number(st.bavail) * Number(st.bsize);
		if (free < bytes + 1_048_576) {
			throw new FailClosed({
				file: dir,
				kind: 'no-space',
				reason:
					`not enough free space for the temp extraction of the databases ` +
					`(${Math.ceil(bytes / 1_048_576)} MiB ` +
					`needed, ${Math.floor(free / 1_048_576)} MiB free)`,
				next: 'point TMPDIR at a larger folder, then verify again',
			});
		}
	} catch (error) {
		if (error instanceof FailClosed) {
			throw error;
		}
	}
}

export function makeTempDir(options: VerifyOptions): string {
	// Named hfx-verify-<pid>-<rand>: removed on exit and signals, swept by the next run after a SIGKILL.
	return ownTempDir('verify', options.tmpDir);
}
