/**
 * A backup's verified and drilled state in words ("yes, 2h ago", "FAILED", "CHANGED since"):
 * the one wording `hfx backups` and the TUI's Backups pane share.
 */
import type {BackupEntry} from '../backup/ops/list.js';
import {ago} from '../text/format.js';

export function backupStatus(e: BackupEntry, now: number): {verified: string; drilled: string} {
	const verified = e.verified ? `yes, ${ago(e.verified.at, now)}${e.verified.level === 'write' ? ' (at write)' : ''}` : (e.changedSinceRecorded ? 'CHANGED since' : (e.lastFailure?.event === 'verify' ? 'FAILED' : 'no'));
	const drilled = e.drilled ? `yes, ${ago(e.drilled.at, now)}` : (e.lastFailure?.event === 'drill' ? 'FAILED' : 'no');
	return {verified, drilled};
}
