/**
 * SHA-256 and random bytes from node:crypto, loaded on first use. A static import would load
 * crypto (twenty internal modules, ~8 ms) at every start of the bundled bin, though only hashing
 * archives, plans and snapshots needs it.
 */
import type {Hash} from 'node:crypto';
import {createRequire} from 'node:module';

type Crypto = typeof import('node:crypto');
let crypto: Crypto | undefined;

function load(): Crypto {
	crypto ??= createRequire(import.meta.url)('node:crypto') as Crypto;
	return crypto;
}

export function sha256(): Hash {
	return load().createHash('sha256');
}

/** `bytes` random bytes as hex. */
export function randomHex(bytes: number): string {
	return load().randomBytes(bytes).toString('hex');
}
