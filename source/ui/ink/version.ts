/**
 * Ink's version, as the build saw it: injected at build time, never read from node_modules at run
 * time. The bundle (scripts/bundle.mjs) and vitest (vitest.config.ts) both define
 * `__HFX_INK_VERSION__` from node_modules/ink/package.json through source/ui/ink/bundle.mjs's
 * `inkDefine()`. Where nothing defined it (dist/'s unbundled modules run by plain Node) it is
 * undefined, and what depends on one Ink version (the frame builder, output.ts) leaves Ink alone.
 * test/ui/ink-version.test.ts fails if it disagrees with the installed Ink.
 */
declare const __HFX_INK_VERSION__: string | undefined;

export const INK_VERSION: string | undefined = typeof __HFX_INK_VERSION__ === 'string' ? __HFX_INK_VERSION__ : undefined;
