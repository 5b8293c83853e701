import {defineConfig} from 'vitest/config';

export default defineConfig({
	// JSX compiles to react/jsx-runtime, as in hfx's build: a test may run React's production build
	// (test/ui/retention.test.ts), whose runtime has no jsxDEV.
	oxc: {jsx: {runtime: 'automatic', development: false}},
	test: {
		include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
		pool: 'forks',
		testTimeout: 60_000,
		hookTimeout: 60_000,
		setupFiles: ['test/setup.ts'],
	},
});
