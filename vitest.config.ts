import {defineConfig} from 'vitest/config';

/**
 * The fast tier (`npm run test:unit`, and CI's Node 22 tier): pure and in-process tests, the engine,
 * the renderers, text, state, views, the repair plan and the build's static checks. No real binary,
 * no second process writing, no tmux.
 */
const UNIT = [
	'test/forensics/**',
	'test/text/**',
	'test/report/**',
	'test/ui/**',
	'test/build/**',
	'test/repair/plan.test.ts',
	'test/repair/confirmation.test.ts',
	'test/errors.test.ts',
	'test/refusal-kinds.test.ts',
	'test/backup/chunks.test.ts',
	'test/backup/create/naming.test.ts',
	'test/backup/archive/{root,member-policy}.test.ts',
].map(glob => (glob.endsWith('**') ? `${glob}/*.test.{ts,tsx}` : glob));

/** In a unit folder, yet system tests: the Backups pane's source runs real `hfx` child processes. */
const SYSTEM_IN_UNIT_FOLDERS = ['test/ui/backups-source.test.tsx'];

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
			{extends: true, test: {name: 'unit', include: UNIT, exclude: SYSTEM_IN_UNIT_FOLDERS}},
			// The system tier leaves out the unit globs, test/ui/'s but for the system tests in it, and the fleet tier.
			{
				extends: true,
				test: {
					name: 'system',
					include: ALL,
					exclude: [
						...UNIT.map(glob => (glob.startsWith('test/ui/') ? 'test/ui/**/!(backups-source).test.{ts,tsx}' : glob)),
						...FLEET,
					],
				},
			},
			{extends: true, test: {name: 'fleet', include: FLEET}},
		],
	},
});
