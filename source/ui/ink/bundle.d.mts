/**
 * Types of bundle.mjs (plain ESM, not compiled), for vitest.config.ts and the tests: its esbuild plugins and
 * the `define` that injects Ink's version.
 */
export type EsbuildPlugin = {name: string; setup(build: unknown): void};

export declare const inkPlugins: EsbuildPlugin[];

export declare function installedInkVersion(): string;

export declare function inkDefine(): {__HFX_INK_VERSION__: string};
