/**
 * `hfx backups [--home ROOT] [--profile NAME] [-o DIR] [--json]`: archives and quick snapshots with
 * age, size, verified and drilled status (the TUI's Backups pane lists the same: homeBackups); with
 * --profile, the archives and that profile's snapshots. Exit 0 listed, 1 no backup at all, 2 could
 * not run (a --profile the root does not have included).
 */
import fs from 'node:fs';
import path from 'node:path';
import {homeBackups} from '../../backup/ops/list.js';
import {type ExitCode, FailClosed} from '../../ground/errors.js';
import {PROFILE_NAME} from '../../store/locate.js';
import {backupLines, backupsJson} from '../../report/backups/backups.js';
import {backupDirs, failIfAbandoned, resolveRoot} from '../shared/backup-root.js';
import {type GlobalFlags, type Io, emit, guarded} from '../context.js';

export type BackupsFlags = GlobalFlags & {output?: string};

export async function runBackups(flags: BackupsFlags, io: Io): Promise<ExitCode> {
	failIfAbandoned(io);
	return guarded(io, flags, () => {
		const root = resolveRoot(flags, io);
		const dirs = backupDirs(flags, root);
		const now = io.now();
		const profile = profileOf(flags.profile, root);
		const entries = homeBackups({root, dirs, now, profile});
		emit(io, flags, {json: () => backupsJson(root, dirs, entries), text: () => backupLines(entries, dirs, root, now)});
		return entries.length > 0 ? 0 : 1;
	});
}

/**
 * The profile --profile names, refused when the root has no such profile's home (a typo would list no snapshot,
 * silently).
 */
function profileOf(profile: string | undefined, root: string): string | null {
	if (!profile || profile === 'default') {
		return profile ?? null;
	}

	const home = path.join(root, 'profiles', profile);
	if (!PROFILE_NAME.test(profile) || !fs.statSync(home, {throwIfNoEntry: false})?.isDirectory()) {
		throw new FailClosed({
			file: home,
			kind: 'no-profile',
			reason: `no profile "${profile}" in this Hermes home`,
			next: `list the profiles with ls ${path.join(root, 'profiles')}`,
		});
	}

	return profile;
}
