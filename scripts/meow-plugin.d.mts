/** Types of scripts/meow-plugin.mjs (plain JavaScript, run by scripts/bundle.mjs). */
import type {Plugin} from 'esbuild';

export const meowPlugin: Plugin;
export function rewriteUnicodeRegExps(code: string): {code: string; literals: number; constructors: number};
