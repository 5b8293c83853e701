/**
 * Evidence bytes: the sha256 of every file under the folders that are evidence (the store's folder,
 * the Hermes home), -shm included, read with plain file I/O by the runner (which holds no SQLite
 * connection). Links, FIFOs and devices are recorded by type and target, never opened (a FIFO
 * would hang the read). Two snapshots give the bytes changed: every file that appeared, vanished or
 * changed counts its size (the larger of before and after, at least 1).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

type Entry = {kind: string; size: number};
export type Snapshot = Map<string, Entry>;

function hashFile(file: string): string {
	try {
		return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
	} catch (error) {
		return `unreadable:${(error as NodeJS.ErrnoException).code ?? 'error'}`;
	}
}

function entryOf(file: string, st: fs.Stats): Entry {
	if (st.isSymbolicLink()) {
		return {kind: `link:${fs.readlinkSync(file)}`, size: 1};
	}

	if (st.isFile()) {
		return {kind: `file:${hashFile(file)}:${st.mode & 0o7777}`, size: Math.max(1, st.size)};
	}

	if (st.isDirectory()) {
		return {kind: `dir:${st.mode & 0o7777}`, size: 1};
	}

	return {kind: `special:${st.mode}:${st.rdev}`, size: 1};
}

function walk(dir: string, out: Snapshot): void {
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return;
	}

	for (const name of names) {
		const p = path.join(dir, name);
		let st: fs.Stats;
		try {
			st = fs.lstatSync(p);
		} catch {
			continue;
		}

		out.set(p, entryOf(p, st));
		if (st.isDirectory()) {
			walk(p, out);
		}
	}
}

export function snapshot(dirs: string[]): Snapshot {
	const out: Snapshot = new Map();
	for (const d of dirs) {
		walk(d, out);
	}

	return out;
}

function allowed(file: string, mayWrite: string[]): boolean {
	return mayWrite.some(m => (m.endsWith('/') ? `${file}/`.startsWith(m) : file === m));
}

/** The bytes changed between two snapshots outside `mayWrite`, and the paths that changed. */
export function changed(before: Snapshot, after: Snapshot, mayWrite: string[] = []): {bytes: number; paths: string[]} {
	let bytes = 0;
	const paths: string[] = [];
	for (const p of new Set([...before.keys(), ...after.keys()])) {
		const a = before.get(p);
		const b = after.get(p);
		if (a?.kind === b?.kind || allowed(p, mayWrite)) {
			continue;
		}

		bytes += Math.max(a?.size ?? 0, b?.size ?? 0);
		paths.push(`${p}${a ? (b ? ' (changed)' : ' (removed)') : ' (created)'}`);
	}

	return {bytes, paths};
}
