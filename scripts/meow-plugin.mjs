/**
 * An esbuild plugin for the bin: meow's options.js imports read-package-up and
 * normalize-package-data (with spdx, semver and hosted-git-info: about half of meow's 245 KB) to
 * find and normalise the caller's package.json. hfx always passes meow its own `pkg` and never
 * reads `result.pkg`, so neither is ever called; stubbing the two imports lets esbuild drop that
 * code from the bundle. Measured: meow's share of a start went from ~30 ms to the figure in
 * `npm run bench -- --only startup`. The unbundled build (dist/*.js, the tests) keeps meow whole.
 */
import fs from 'node:fs';

const IMPORT = "import { a as readPackageUpSync, n as normalizePackageData } from './dependencies.js';";

export const meowPlugin = {
	name: 'hfx-meow-without-package-json',
	setup(build) {
		build.onLoad({filter: /[\\/]meow[\\/]build[\\/]options\.js$/}, async args => {
			const source = await fs.promises.readFile(args.path, 'utf8');
			if (!source.includes(IMPORT)) {
				throw new Error(`meow's options.js no longer imports "${IMPORT}": review scripts/meow-plugin.mjs for this meow version`);
			}

			const stubs = 'const readPackageUpSync = () => undefined;\nconst normalizePackageData = () => {\n\tthrow new Error(\'hfx passes meow its pkg and never reads result.pkg\');\n};';
			return {contents: source.replace(IMPORT, stubs), loader: 'js'};
		});
	},
};
