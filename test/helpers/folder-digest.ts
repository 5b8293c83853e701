/**
 * The evidence a read-only command must not change, as strictly as it can be said: the sha256 of
 * every file in the store's folder (-shm and -journal included) and the listing itself (no file
 * created, none removed). Read by the test process, which holds no SQLite connection. Symbolic
 * links are recorded by their target, never followed (a loop must not throw).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function folderDigest(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const name of fs.readdirSync(dir).sort()) {
		const p = path.join(dir, name);
		const st = fs.lstatSync(p);
		if (st.isSymbolicLink()) {
			out[name] = `link:${fs.readlinkSync(p)}`;
		} else if (st.isFile()) {
			try {
				out[name] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
			} catch (error) {
				out[name] = `unreadable:${(error as NodeJS.ErrnoException).code}`;
			}
		} else {
			out[name] = st.isDirectory() ? `dir:${fs.readdirSync(p).sort().join(',')}` : `mode:${st.mode.toString(8)}`;
		}
	}

	return out;
}
