/**
 * Files hfx runs as separate processes or workers (the backup checker, the demo
 * gateway, the CLI itself) live in the compiled tree `dist/`. This module sits in ground/, one below the top of
 * that tree, and the bundle (`dist/hfx-bundle.js` and its chunks, all in dist/ itself: scripts/bundle.mjs)
 * inlines it at the same level, so `import.meta.url` names the folder in both; from the TypeScript sources (tests) it
 * names `source/`, beside `dist/`.
 */
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

/** This module's folder: dist/ in the bundle; dist/ground/ (tsc's output) or source/ground/ unbundled. */
const moduleDir = path.dirname(fileURLToPath(import.meta.url));
/** The top of its tree: dist/, or source/ from the TypeScript sources. */
const here = path.basename(moduleDir) === 'ground' ? path.dirname(moduleDir) : moduleDir;

/** The compiled tree: `dist/`. */
export function distRoot(): string {
	return path.basename(here) === 'source' ? path.resolve(here, '..', 'dist') : here;
}

/** A compiled file under dist/, which must exist (or one line saying to build first). */
export function distFile(relative: string): string {
	const file = path.join(distRoot(), relative);
	if (!fs.existsSync(file)) {
		throw new Error(`internal: ${file} is missing; build hfx first (npm run build)`);
	}

	return file;
}

/** The package folder (package.json, node_modules). */
export function packageRoot(): string {
	return path.dirname(distRoot());
}
