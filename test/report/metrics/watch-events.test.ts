/**
 * The events `hfx watch` prints, from two readings of the real v21 incident fixture: the first
 * reading raises what is there, an unchanged one says nothing, an unreadable one says so once and
 * clears nothing it cannot see, backups crossing the bound, a WAL reset.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import type {BackupAges} from '../../../source/report/metrics/backup-ages.js';
import type {StoreReading} from '../../../source/report/metrics/metrics-samples.js';
import {diffDigests, digestOf} from '../../../source/report/metrics/watch-events.js';
import {loadStore} from '../../../source/store/read/load.js';
import {ROOT} from '../../helpers/writer.js';

const loaded = loadStore(
	{path: path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), owner: 'default', label: 'default'},
	{columns: 'lean'},
);
const analysis = analyze(loaded.snapshot);
const fresh: BackupAges = {verifiedAgeSeconds: 60, drilledAgeSeconds: 60};
const ok = (backups = fresh): StoreReading => ({
	profile: 'default',
	at: 1000,
	seconds: 0.1,
	result: {ok: true, facts: loaded.facts, analysis},
	files: null,
	backups,
	build: null,
});
const down: StoreReading = {
	profile: 'default',
	at: 1001,
	seconds: 0,
	result: {ok: false, kind: 'empty-file', line: 'hfx: x: empty. Next: y'},
	files: null,
	backups: fresh,
	build: null,
};
const context = {profile: 'default', at: 1000, boundSeconds: 3600};

describe('watch events', () => {
	it('the first reading raises every rollback risk and orphan there is; an unchanged reading says nothing', () => {
		const first = digestOf(ok(), 3600);
		const events = diffDigests(undefined, first, context);
		const risks = analysis.routing.filter(r => r.rollbackRisk);
		expect(risks.length).toBeGreaterThan(0);
		expect(
			events
				.filter(e => e.event === 'rollback-risk-raised')
				.map(e => e.sessionKey)
				.sort(),
		).toEqual(risks.map(r => r.sessionKey).sort());
		expect(events.filter(e => e.event === 'orphan-appeared')).toHaveLength(analysis.orphans.length);
		expect(events.filter(e => !['rollback-risk-raised', 'orphan-appeared'].includes(e.event))).toEqual([]);
		expect(diffDigests(first, digestOf(ok(), 3600, first), context)).toEqual([]);
	});

	it('an unreadable store is one store-down (not a clearing of what it cannot see), then store-up', () => {
		const first = digestOf(ok(), 3600);
		const gone = digestOf(down, 3600, first);
		expect(diffDigests(first, gone, context).map(e => e.event)).toEqual(['store-down']);
		const still = digestOf(down, 3600, gone);
		expect(diffDigests(gone, still, context)).toEqual([]);
		expect(diffDigests(still, digestOf(ok(), 3600, still), context).map(e => e.event)).toEqual(['store-up']);
	});

	it('a backup older than the bound (or none) is backup-stale once, and backup-fresh when a newer one comes', () => {
		const first = digestOf(ok(), 3600);
		const old = digestOf(ok({verifiedAgeSeconds: 7200, drilledAgeSeconds: null}), 3600, first);
		const events = diffDigests(first, old, context);
		expect(events.map(e => [e.event, e.kind, e.ageSeconds])).toEqual([
			['backup-stale', 'verified', 7200],
			['backup-stale', 'drilled', null],
		]);
		expect(events[1]!.message).toContain('hfx restore --drill');
		expect(
			diffDigests(old, digestOf(ok({verifiedAgeSeconds: 7300, drilledAgeSeconds: null}), 3600, old), context),
		).toEqual([]);
		expect(diffDigests(old, digestOf(ok(), 3600, old), context).map(e => e.event)).toEqual([
			'backup-fresh',
			'backup-fresh',
		]);
	});

	it('a risk that goes is rollback-risk-cleared, and a chat resuming another session is a rotation', () => {
		const first = digestOf(ok(), 3600);
		const key = analysis.routing.find(r => r.rollbackRisk)!.sessionKey;
		const fixed = {
			...first,
			risks: new Map([...first.risks].filter(([k]) => k !== key)),
			resolves: new Map([...first.resolves, [key, 'the-new-session']]),
		};
		const events = diffDigests(first, fixed, context);
		expect(events.map(e => e.event).sort()).toEqual(['rollback-risk-cleared', 'rotation']);
		expect(events.find(e => e.event === 'rotation')).toMatchObject({sessionKey: key, to: 'the-new-session'});
		expect(diffDigests(first, {...first, walReset: 'salts-changed'}, context).map(e => e.event)).toEqual(['wal-reset']);
	});
});
