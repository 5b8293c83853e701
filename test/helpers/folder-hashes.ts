/**
 * The evidence of a fault test: every name in a folder (recursively) with its type, and the sha256
 * of every regular file (-shm included). FIFOs, sockets and links are recorded by type and link
 * text, never opened (reading a FIFO would block this test the way it blocked hfx).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export function folderHashes(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	const visit = (rel: string): void => {
		const abs = path.join(dir, rel);
		for (const name of fs.readdirSync(abs).sort()) {
			const r = rel ? `${rel}/${name}` : name;
			const st = fs.lstatSync(path.join(dir, r));
			if (st.isDirectory()) {
				out[`${r}/`] = 'dir';
				visit(r);
			} else if (st.isSymbolicLink()) {
				out[r] = `link -> ${fs.readlinkSync(path.join(dir, r))}`;
			} else if (st.isFile()) {
				out[r] = crypto
					.createHash('sha256')
					.update(fs.readFileSync(path.join(dir, r)))
					.digest('hex');
			} else {
				out[r] = st.isFIFO() ? 'fifo' : 'other';
			}
		}
	};

	visit('');
	return out;
}

/** The one-line refusal every fault ends in: one line, `hfx: ` first, no stack trace. */
export function oneLine(stderr: string): string {
	const lines = stderr.trim().split('\n');
	if (lines.length !== 1 || !lines[0]!.startsWith('hfx: ') || /\n\s+at |Error:|node:internal/.test(stderr)) {
		throw new Error(`expected one refusal line, got:\n${stderr}`);
	}

	return lines[0]!;
}
