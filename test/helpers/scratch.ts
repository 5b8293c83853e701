/**
 * A test file's scratch folder and its cleanups: a temporary folder removed after the file's last test, and
 * cleanups (writers killed, live stores closed) run after each test, the last registered first.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, afterEach} from 'vitest';

export type Cleanup = () => Promise<void> | void;

export function scratch(prefix: string): {dir: string; cleanups: Cleanup[]} {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	const cleanups: Cleanup[] = [];
	afterEach(async () => {
		for (const c of cleanups.splice(0).reverse()) {
			await c();
		}
	});
	afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));
	return {dir, cleanups};
}
