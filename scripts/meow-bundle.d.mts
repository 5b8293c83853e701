/** Types of scripts/meow-bundle.mjs (plain JavaScript, run by scripts/bundle.mjs). */
import type {Plugin} from 'esbuild';

export function meowScript(): Promise<string>;
export function meowCache(source: string): string;
export function meowModule(): Promise<string>;
export const meowCachedPlugin: Plugin;
