/**
 * Types of bundle.mjs (plain ESM, not compiled), for scripts and tests: its esbuild plugins.
 */
export type EsbuildPlugin = {name: string; setup(build: unknown): void};

export declare const inkPlugins: EsbuildPlugin[];
