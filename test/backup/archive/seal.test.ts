/**
 * The seal of our zip archives (source/backup/archive/seal.ts): the end record's comment
 * `hfx-seal-v1 sha256:<64 hex>`, the prefix and length the writer reserves and the pattern the
 * reader matches.
 */
import {describe, expect, it} from 'vitest';
import {SEAL_LENGTH, SEAL_PATTERN, SEAL_PREFIX} from '../../../source/backup/archive/seal.js';

const HEX = 'ab'.repeat(32);

describe('the seal', () => {
	it('is the prefix and 64 hex digits, and its length is what the writer reserves', () => {
		expect(SEAL_PREFIX).toBe('hfx-seal-v1 sha256:');
		expect(SEAL_LENGTH).toBe(19 + 64);
		expect(`${SEAL_PREFIX}${HEX}`).toHaveLength(SEAL_LENGTH);
		expect(SEAL_PATTERN.exec(`${SEAL_PREFIX}${HEX}`)?.[1]).toBe(HEX);
	});

	it('matches only a whole seal: no upper case, no short or long digest, nothing around it, no other version', () => {
		for (const comment of [
			`${SEAL_PREFIX}${HEX.toUpperCase()}`,
			`${SEAL_PREFIX}${HEX.slice(1)}`,
			`${SEAL_PREFIX}${HEX}0`,
			` ${SEAL_PREFIX}${HEX}`,
			`${SEAL_PREFIX}${HEX}\n`,
			`hfx-seal-v2 sha256:${HEX}`,
			`${SEAL_PREFIX}${'g'.repeat(64)}`,
			'',
		]) {
			expect(SEAL_PATTERN.test(comment), JSON.stringify(comment)).toBe(false);
		}
	});
});
