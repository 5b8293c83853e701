/**
 * What a backup artifact is, by its first bytes: an hfx or Hermes zip, a tar.gz, a tar, or a
 * snapshot folder.
 */
import fs from 'node:fs';
import {fileTypeName, readForeign} from '../../store/foreign-file.js';

export type ArtifactKind = 'zip' | 'snapshot' | 'tar.gz' | 'tar' | 'unknown';

export function detectKind(p: string): ArtifactKind {
	let st: fs.Stats;
	try {
		st = fs.statSync(p);
	} catch {
		return 'unknown';
	}

	if (st.isDirectory()) {
		return 'snapshot';
	}

	// A FIFO, socket or device: opening it could block forever, and it is no archive.
	if (!st.isFile()) {
		return 'unknown';
	}

	let head: Buffer = Buffer.alloc(0);
	try {
		// Non-blocking and checked on the descriptor: a FIFO swapped in after the stat is never read.
		head = readForeign(p, {maxBytes: 512, what: 'it as an archive'}).bytes;
	} catch {
		return 'unknown';
	}

	if (
		head.length >= 4 &&
		head[0] === 0x50 &&
		head[1] === 0x4b &&
		(head[2] === 3 || head[2] === 5) &&
		(head[3] === 4 || head[3] === 6)
	) {
		return 'zip';
	}

	if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
		return 'tar.gz';
	}

	if (head.length >= 263 && head.subarray(257, 262).toString('latin1') === 'ustar') {
		return 'tar';
	}

	// A damaged zip whose first bytes were hit: still try the zip reader when the name says so.
	return /\.zip$/i.test(p) ? 'zip' : 'unknown';
}

/**
 * Why a path is no artifact at all, in words, before its bytes are looked at: absent, or not a file or folder (a FIFO
 * is never opened).
 */
export function notAnArtifact(p: string): string | null {
	let st: fs.Stats;
	try {
		st = fs.statSync(p);
	} catch {
		return 'no such file or folder';
	}

	return st.isFile() || st.isDirectory()
		? null
		: `${fileTypeName(st)}, not a file or folder: hfx never opens it as an ` +
				`archive (a FIFO or a device could block the read forever)`;
}
