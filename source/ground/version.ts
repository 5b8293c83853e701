/**
 * hfx's version: the one source is package.json, read once (--version, audit entries, backup
 * manifests all say the same). An unreadable package.json is an install problem: it throws.
 */
import fs from 'node:fs';
import path from 'node:path';
import {packageRoot} from './paths.js';

let cached: string | undefined;

export function toolVersion(): string {
	if (cached === undefined) {
		const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as {version?: unknown};
		if (typeof pkg.version !== 'string' || pkg.version === '') {
			throw new Error(`${path.join(packageRoot(), 'package.json')} has no version`);
		}

		cached = pkg.version;
	}

	return cached;
}
