/**
 * How old the newest verified and drilled backup of one store are (report/metrics/backup-ages.ts): an archive
 * counts for every store, a snapshot for its own profile alone; a backup changed since it was recorded
 * or known incomplete counts for neither; no time, no age.
 */
import {describe, expect, it} from 'vitest';
import type {BackupEntry} from '../../../source/backup/ops/list.js';
import {backupAges} from '../../../source/report/metrics/backup-ages.js';

const NOW = 1_786_670_000;

function entry(partial: Partial<BackupEntry> = {}): BackupEntry {
	return {
		path: '/b/x.zip',
		name: 'x.zip',
		kind: 'hfx-archive',
		profile: null,
		createdAt: NOW - 7200,
		ageSeconds: 7200,
		size: 10,
		verified: null,
		drilled: null,
		lastFailure: null,
		complete: true,
		changedSinceRecorded: false,
		seal: null,
		home: null,
		owner: 'this',
		...partial,
	};
}

const VERIFIED = {at: NOW, level: 'full', live: null};

describe('backupAges', () => {
	it('is null for both with no backups, or none verified or drilled', () => {
		expect(backupAges([], 'default', NOW)).toEqual({verifiedAgeSeconds: null, drilledAgeSeconds: null});
		expect(backupAges([entry()], 'default', NOW)).toEqual({verifiedAgeSeconds: null, drilledAgeSeconds: null});
	});

	it('takes the newest verified and the newest drilled apart', () => {
		const ages = backupAges(
			[
				entry({createdAt: NOW - 600, verified: VERIFIED}),
				entry({createdAt: NOW - 100, verified: VERIFIED}),
				entry({createdAt: NOW - 3000, verified: VERIFIED, drilled: {at: NOW}}),
			],
			'default',
			NOW,
		);
		expect(ages).toEqual({verifiedAgeSeconds: 100, drilledAgeSeconds: 3000});
	});

	it('counts a snapshot for its own profile only, an archive for every profile', () => {
		const list = [
			entry({kind: 'snapshot', profile: 'work', createdAt: NOW - 50, verified: VERIFIED}),
			entry({createdAt: NOW - 900, verified: VERIFIED}),
		];
		expect(backupAges(list, 'work', NOW).verifiedAgeSeconds).toBe(50);
		expect(backupAges(list, 'default', NOW).verifiedAgeSeconds).toBe(900);
	});

	it('counts neither a backup changed since recorded nor one known incomplete; unknown completeness counts', () => {
		const base = {createdAt: NOW - 10, verified: VERIFIED, drilled: {at: NOW}};
		expect(backupAges([entry({...base, changedSinceRecorded: true})], 'default', NOW)).toEqual({
			verifiedAgeSeconds: null,
			drilledAgeSeconds: null,
		});
		expect(backupAges([entry({...base, complete: false})], 'default', NOW).verifiedAgeSeconds).toBeNull();
		expect(backupAges([entry({...base, complete: null})], 'default', NOW).verifiedAgeSeconds).toBe(10);
	});

	it('skips a backup with no creation time, and says 0 for one dated after now', () => {
		expect(backupAges([entry({createdAt: null, verified: VERIFIED})], 'default', NOW).verifiedAgeSeconds).toBeNull();
		expect(backupAges([entry({createdAt: NOW + 500, verified: VERIFIED})], 'default', NOW).verifiedAgeSeconds).toBe(0);
	});
});
