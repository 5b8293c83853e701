/**
 * fsync of files and folders: what makes a written file and a rename inside a folder durable.
 */
import fs from 'node:fs';
import {errorCode} from '../ground/errors.js';

/** fsync a folder so a rename inside it is durable (rename alone is atomic, not durable). */
export function fsyncDir(dir: string): void {
	let fd: number | undefined;
	try {
		fd = fs.openSync(dir, 'r');
		fs.fsyncSync(fd);
	} catch (error) {
		// Some filesystems refuse fsync on a directory (EINVAL); the rename is still atomic.
		if (errorCode(error) !== 'EINVAL' && errorCode(error) !== 'EBADF') {
			throw error;
		}
	} finally {
		if (fd !== undefined) {
			fs.closeSync(fd);
		}
	}
}

export function fsyncFile(file: string): void {
	const fd = fs.openSync(file, 'r');
	try {
		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}
}
