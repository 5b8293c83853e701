/**
 * The Files pane's data: the store's files, the WAL frame classes, the -shm header (read in a
 * child process), the processes holding the files and the other places the conversation can be
 * beside the store. Filled by the live files probe.
 */
import type {HolderReport} from '../../store/files/holders.js';

export type FilesModel = {
	lines: Array<{text: string; tone?: 'danger' | 'warn' | 'ok' | 'muted'}>;
	holders: HolderReport | null;
	updatedAt: number;
};

export type FilesSource = {
	model: FilesModel | null;
	subscribe: (listener: (model: FilesModel) => void) => () => void;
	/** The Files pane is on screen: poll often (otherwise rarely: the /proc walk is not free). */
	setVisible?: (visible: boolean) => void;
};
