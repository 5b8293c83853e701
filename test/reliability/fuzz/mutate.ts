/**
 * Seeded mutations of a real file's bytes: flips of random bits, bytes overwritten with edge
 * values, a cut, a slice repeated or removed, random bytes appended, a 32-bit field set to an
 * extreme. The same seed gives the same inputs (test/helpers/prng.ts).
 */
import {prng} from '../../helpers/prng.js';

const EDGE = [0x00, 0xff, 0x7f, 0x80, 0x01];

export type Rng = () => number;

export function rng(seed: number): Rng {
	return prng(seed);
}

function int(r: Rng, n: number): number {
	return Math.floor(r() * Math.max(1, n));
}

function one(r: Rng, src: Buffer, hot: number): Buffer {
	const b = Buffer.from(src);
	// Half the mutations land in the first `hot` bytes (headers), where parsers branch most.
	const at = (): number => (r() < 0.5 ? int(r, Math.min(hot, b.length)) : int(r, b.length));
	switch (int(r, 7)) {
		case 0: {
			for (let k = 1 + int(r, 8); k > 0; k--) {
				const i = at();
				b[i] = b[i]! ^ (1 << int(r, 8));
			}

			return b;
		}

		case 1: {
			b[at()] = EDGE[int(r, EDGE.length)]!;
			return b;
		}

		case 2: {
			return b.subarray(0, int(r, b.length));
		}

		case 3: {
			const i = at();
			const n = 1 + int(r, 4096);
			return Buffer.concat([b.subarray(0, i), b.subarray(i, i + n), b.subarray(i)]);
		}

		case 4: {
			const i = at();
			return Buffer.concat([b.subarray(0, i), b.subarray(i + 1 + int(r, 4096))]);
		}

		case 5: {
			return Buffer.concat([b, Buffer.from(Array.from({length: 1 + int(r, 2048)}, () => int(r, 256)))]);
		}

		default: {
			const i = at() & ~3;
			if (i + 4 <= b.length) {
				b.writeUInt32BE([0, 0xff_ff_ff_ff, 0x80_00_00_00, 1, 65_536][int(r, 5)]!, i);
			}

			return b;
		}
	}
}

/** One to three stacked mutations of `src`. */
export function mutate(r: Rng, src: Buffer, hot = 512): Buffer {
	let b = src;
	for (let k = 1 + int(r, 3); k > 0; k--) {
		b = one(r, b, hot);
	}

	return b;
}
