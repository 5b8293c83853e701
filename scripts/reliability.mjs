/**
 * `npm run reliability [-- --long] [-- --out FILE] [-- --only ID,ID]`: issue #17's suite (the fault
 * catalog and the fuzzers of test/reliability/, see its README). The suite is TypeScript that
 * imports the test helpers; esbuild bundles it into one file beside it (removed after the run) (better-sqlite3 and
 * the other native or lazily required modules stay external) and it runs against dist/hfx.js,
 * which `npm run reliability` builds first.
 */
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {build} from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
// Inside the repository's tree, so `import.meta.dirname` of the bundle resolves ROOT as the sources do.
const outfile = path.join(root, `test/reliability/.bundle-${process.pid}.mjs`);
try {
	await build({
		entryPoints: [path.join(root, 'test/reliability/main.ts')],
		outfile,
		bundle: true,
		platform: 'node',
		format: 'esm',
		target: 'node20',
		packages: 'external',
		banner: {js: "import {createRequire as __r} from 'node:module'; const require = __r(import.meta.url);"},
		logLevel: 'warning',
	});
	const {main} = await import(pathToFileURL(outfile).href);
	process.exitCode = await main(process.argv.slice(2));
} finally {
	fs.rmSync(outfile, {force: true});
}
