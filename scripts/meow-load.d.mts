/** Types of scripts/meow-load.mjs (plain JavaScript: esbuild bundles it into the bin as it is). */
import type {Script} from 'node:vm';
import type meow from 'meow';

export const MEOW_FILENAME: string;
export function wrapped(source: string): string;
export function sealed(bytes: Buffer): string;
export function loadMeow(source: string, cache?: string): {meow: typeof meow; script: Script; cacheRejected: boolean | null};
