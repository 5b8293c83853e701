import {defineConfig} from 'vitest/config';

/**
 * Three tiers, each test file in exactly one (test/build/tiers.test.ts checks it):
 *
 * - unit (`npm run test:unit`, and CI's Node 22 tier): pure and in-process tests, the engine, the
 *   renderers, text, state, views, the repair plan and the build's static checks. No second process
 *   (no real binary, no writer process, no tmux, no sqlite3 CLI, no other node) and nothing read from
 *   dist/, so it runs without a build. The folders below hold them.
 * - system (`npm test` with unit): everything else. A test in a unit folder that drives a second
 *   process is named `*.system.test.ts(x)` (test/ui/repair/repair-flow.system.test.tsx drives a writer
 *   process): the name puts it in this tier, whatever folder it is in.
 * - fleet (`npm run test:fleet`): the FLEET files below.
 */
const UNIT_FOLDERS = [
	'test/forensics/**',
	'test/text/**',
	'test/report/**',
	'test/ui/**',
	'test/build/**',
	'test/repair/plan/plan.test.ts',
	'test/repair/plan/confirmation.test.ts',
	'test/ground/errors.test.ts',
	'test/backup/chunks.test.ts',
	'test/backup/create/naming.test.ts',
	'test/backup/archive/{root,member-policy}.test.ts',
].map(glob => (glob.endsWith('**') ? `${glob}/*.test.{ts,tsx}` : glob));

/** The name that makes a test file in a unit folder a system test. */
const SYSTEM_BY_NAME = 'test/**/*.system.test.{ts,tsx}';

/** The unit tier's files, as the system tier leaves them out: a folder's files but its `*.system` ones. */
const UNIT_FILES = UNIT_FOLDERS.map(glob => glob.replace('/*.test.', '/!(*.system).test.'));

const ALL = ['test/**/*.test.ts', 'test/**/*.test.tsx'];

/**
 * The fleet tier (`npm run test:fleet`, run by .ci/run after it installs the Debian packages): real
 * Prometheus, node_exporter and promtool, which a fresh machine does not have, and the container
 * recipe's command line on a read-only bind mount (root, as .ci/run runs it). `npm test` needs
 * only what the README's Quick start names (tmux, sqlite3).
 */
const FLEET = ['test/e2e/prometheus.test.ts', 'test/e2e/prometheus-rules.test.ts', 'test/e2e/container.test.ts'];

export default defineConfig({
	// JSX compiles to react/jsx-runtime, as in hfx's build: a test may run React's production build
	// (test/ui/retention.test.ts), whose runtime has no jsxDEV.
	oxc: {jsx: {runtime: 'automatic', development: false}},
	test: {
		pool: 'forks',
		testTimeout: 60_000,
		hookTimeout: 60_000,
		setupFiles: ['test/setup.ts'],
		// `npm test` runs unit and system; `npm run test:unit` the first alone; `npm run test:fleet` the third.
		projects: [
			// One process for every unit file (isolate: false: Node, vitest, React, Ink and source/ load once,
			// not once a file), on React's production build, as hfx runs it (source/cli/main.tsx): the first file
			// loads React for all, and test/ui/retention.test.ts needs that build.
			{
				extends: true,
				test: {
					name: 'unit',
					include: UNIT_FOLDERS,
					exclude: [SYSTEM_BY_NAME],
					isolate: false,
					env: {NODE_ENV: 'production'},
				},
			},
			// The system tier: every test file but the unit tier's and the fleet tier's.
			{extends: true, test: {name: 'system', include: ALL, exclude: [...UNIT_FILES, ...FLEET]}},
			{extends: true, test: {name: 'fleet', include: FLEET}},
		],
	},
});
