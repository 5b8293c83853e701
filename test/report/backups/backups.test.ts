/**
 * A backup's state in words, shared by `hfx backups` and the TUI's Backups pane.
 */
import {describe, expect, it} from 'vitest';
import type {BackupEntry} from '../../../source/backup/ops/list.js';
import {backupStatus} from '../../../source/report/backups/backups.js';

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
		owner: 'unknown',
		...partial,
	};
}

describe('backupStatus', () => {
	it('says when it was verified and drilled, and at write time when that is all it had', () => {
		expect(
			backupStatus(entry({verified: {at: NOW - 7200, level: 'full', live: null}, drilled: {at: NOW - 3600}}), NOW),
		).toEqual({verified: 'yes, 2.0h ago', drilled: 'yes, 60m ago'});
		expect(backupStatus(entry({verified: {at: NOW - 60, level: 'write', live: null}}), NOW).verified).toMatch(
			/^yes, .* \(at write\)$/,
		);
	});

	it('says FAILED for a failed verify or drill, CHANGED since for bytes that moved, else no', () => {
		expect(backupStatus(entry({lastFailure: {at: NOW, event: 'verify', summary: 'crc'}}), NOW)).toEqual({
			verified: 'FAILED',
			drilled: 'no',
		});
		expect(backupStatus(entry({lastFailure: {at: NOW, event: 'drill', summary: 'scan'}}), NOW)).toEqual({
			verified: 'no',
			drilled: 'FAILED',
		});
		expect(backupStatus(entry({changedSinceRecorded: true}), NOW).verified).toBe('CHANGED since');
		expect(backupStatus(entry(), NOW)).toEqual({verified: 'no', drilled: 'no'});
	});
});
