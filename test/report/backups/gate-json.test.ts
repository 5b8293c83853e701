/**
 * `hfx gate --json` (report/backups/gate-json.ts): the verdict as the gate decided it, every candidate with
 * what it lacks, its verify and drill records as yes/no (never their records), nothing else of it.
 */
import {describe, expect, it} from 'vitest';
import type {GateCandidate, GateResult} from '../../../source/backup/ops/gate.js';
import {gateJson} from '../../../source/report/backups/gate-json.js';

const NOW = 1_786_670_000;

function candidate(partial: Partial<GateCandidate> = {}): GateCandidate {
	return {
		path: '/b/a.zip',
		name: 'a.zip',
		kind: 'hfx-archive',
		profile: null,
		createdAt: NOW - 60,
		ageSeconds: 60,
		size: 99,
		verified: {at: NOW - 30, level: 'full', live: null},
		drilled: {at: NOW - 20},
		lastFailure: {at: NOW - 10, event: 'verify', summary: 'crc'},
		complete: true,
		changedSinceRecorded: false,
		seal: 'abc',
		home: '/home/u/.hermes',
		owner: 'this',
		missing: [],
		...partial,
	};
}

describe('gateJson', () => {
	it('keeps the verdict and says verified and drilled as booleans', () => {
		const result: GateResult = {
			ok: true,
			archive: '/b/a.zip',
			reason: 'a.zip is verified and drilled',
			maxAgeSeconds: 86_400,
			candidates: [candidate()],
		};
		expect(gateJson(result)).toEqual({
			ok: true,
			archive: '/b/a.zip',
			reason: 'a.zip is verified and drilled',
			maxAgeSeconds: 86_400,
			candidates: [
				{
					path: '/b/a.zip',
					kind: 'hfx-archive',
					ageSeconds: 60,
					verified: true,
					drilled: true,
					complete: true,
					home: '/home/u/.hermes',
					owner: 'this',
					missing: [],
				},
			],
		});
	});

	it('says false for a candidate never verified or drilled, with what it lacks, and no seal or failure', () => {
		const doc = gateJson({
			ok: false,
			archive: null,
			reason: 'no archive is drilled',
			maxAgeSeconds: 3600,
			candidates: [
				candidate({verified: null, drilled: null, complete: null, owner: 'unknown', missing: ['verify', 'drill']}),
				candidate({path: '/b/b.zip', drilled: null, missing: ['drill']}),
			],
		});
		expect(doc.ok).toBe(false);
		expect(doc.archive).toBeNull();
		expect(doc.candidates[0]).toMatchObject({
			verified: false,
			drilled: false,
			complete: null,
			missing: ['verify', 'drill'],
		});
		expect(doc.candidates[1]).toMatchObject({path: '/b/b.zip', verified: true, drilled: false, missing: ['drill']});
		expect(Object.keys(doc.candidates[0]!)).not.toContain('seal');
		expect(Object.keys(doc.candidates[0]!)).not.toContain('lastFailure');
	});
});
