/**
 * The Backups pane's data and actions (verify, drill, quick snapshot), provided by the backup
 * module.
 */
import type {BackupEntry} from '../../backup/ops/list.js';

export type {BackupEntry} from '../../backup/ops/list.js';

export type BackupsModel = {
	entries: BackupEntry[];
	/** Work in progress, e.g. "verifying hermes-backup-….zip 42%". */
	busy: string | null;
	/** The outcome of the last action, one line. */
	last: string | null;
	root: string | null;
};

export type BackupsSource = {
	model: BackupsModel | null;
	subscribe: (listener: (model: BackupsModel) => void) => () => void;
	verify: (path: string) => void;
	drill: (path: string) => void;
	snapshot: () => void;
};
