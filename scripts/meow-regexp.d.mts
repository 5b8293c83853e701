/** Types of scripts/meow-regexp.mjs (plain JavaScript: esbuild bundles it into the bin as it is). */
export const ASCII_MEMBERS: ReadonlyMap<string, string>;
export function asciiTwin(source: string): string | null;
export function meowRegExp(pattern: string | RegExp, flags?: string): RegExp;
