/**
 * The rollback-happened event from two readings of the v21 incident moved past its restart by a
 * second process (issue #23 point 1): once on the first reading, silent on an unchanged one, kept
 * (not cleared) while the store cannot be read, and its next step names a non-default profile.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {analyze} from '../../source/forensics/analysis/analyze.js';
import type {StoreReading} from '../../source/report/metrics/metrics-samples.js';
import {type Digest, diffDigests, digestOf} from '../../source/report/metrics/watch-events.js';
import {loadStore} from '../../source/store/read/load.js';
import {INCIDENT_CHAT, postRestartIncident} from '../helpers/post-restart.js';

let dir: string;
let reading: StoreReading;
const backups = {verifiedAgeSeconds: 60, drilledAgeSeconds: 60};
const context = {profile: 'work', at: 1000, boundSeconds: 3600};

beforeAll(async () => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-rollback-events-'));
	const loaded = loadStore({path: await postRestartIncident(dir), owner: 'work', label: 'work'}, {columns: 'lean'});
	reading = {
		profile: 'work',
		at: 1000,
		seconds: 0.1,
		result: {ok: true, facts: loaded.facts, analysis: analyze(loaded.snapshot)},
		files: null,
		backups,
		build: null,
	};
});
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

describe('the rollback-happened event', () => {
	it(
		'is said once, first, with the profile in its next step; an unchanged ' +
			'reading and an unreadable one say nothing of it',
		() => {
			const first: Digest = digestOf(reading, 3600);
			const events = diffDigests(undefined, first, context);
			expect(events[0]).toMatchObject({
				event: 'rollback-happened',
				profile: 'work',
				sessionKey: INCIDENT_CHAT,
				next:
					'preview its adoption with: hfx repair --profile work --only 427c496c ' +
					'--donor 46fab954 (then stop the gateway and add --apply)',
			});
			expect(events.filter(e => e.event === 'rollback-happened')).toHaveLength(1);
			expect(diffDigests(first, digestOf(reading, 3600, first), context)).toEqual([]);
			const down = digestOf({...reading, result: {ok: false, kind: 'empty-file', line: 'hfx: x'}}, 3600, first);
			expect(diffDigests(first, down, context).map(e => e.event)).toEqual(['store-down']);
			expect(diffDigests(down, digestOf(reading, 3600, down), context).map(e => e.event)).toEqual(['store-up']);
		},
	);
});
