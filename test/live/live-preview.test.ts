/**
 * A live store opened from a preview (issue #26: render first, analyse after; live/live.ts openPreview and
 * analyseFirst): first the newest rows and the count of all, no verdict, nothing re-read; then the store read whole and
 * analysed, published once, as a store opened whole would show it. On a copy of the v21 incident store held open by a
 * writer process (read in place, as an agent's store).
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {LiveStore, type LiveModel} from '../../source/live/live.js';
import {copyIncident, incidentWriter} from '../helpers/post-restart.js';
import {T0} from '../fixtures/scenarios.js';
import {WriterProcess} from '../helpers/writer.js';
import {scratch} from '../helpers/scratch.js';

const {dir, cleanups} = scratch('hfx-live-preview-');

let n = 0;
async function heldIncident(): Promise<string> {
	const db = copyIncident(path.join(dir, `s${n++}`));
	const writer = await incidentWriter(db);
	cleanups.push(() => writer.kill());
	return db;
}

const location = (db: string) => ({path: db, owner: 'default', label: 'preview'});
const kinds = (m: LiveModel) => m.analysis.findings.map(f => `${f.kind} ${f.subject}`);

describe('LiveStore.openPreview', () => {
	it('shows the newest rows and no verdict, then publishes the analysis a whole open shows', async () => {
		const db = await heldIncident();
		const whole = LiveStore.open(location(db), {watch: false});
		cleanups.push(() => whole.close());
		const live = LiveStore.openPreview(location(db), {watch: false}, 5);
		cleanups.push(() => live.close());

		const all = whole.model.analysis.snapshot.sessions;
		expect(live.model.analysing).toEqual({shown: 5, total: all.length});
		expect(live.model.analysis.snapshot.sessions.map(s => s.id)).toEqual(all.slice(-5).map(s => s.id));
		expect(live.model.analysis.findings).toEqual([]);
		expect(live.model.analysis.routing).toEqual([]);
		// The incident store is at rollback risk: the whole open says so, the preview does not pretend either way.
		expect(kinds(whole.model).some(k => k.startsWith('rollback-risk'))).toBe(true);
		// Nothing is re-read while the first analysis is pending.
		expect(live.refresh(true)).toBe(false);

		const published: LiveModel[] = [];
		live.subscribe(m => published.push(m));
		const revision = live.model.revision;
		await live.analyseFirst();
		expect(published).toHaveLength(1);
		expect(live.model.analysing).toBeUndefined();
		expect(live.model.revision).toBe(revision + 1);
		expect(kinds(live.model)).toEqual(kinds(whole.model));
		expect(live.model.analysis.snapshot.sessions.map(s => s.id)).toEqual(all.map(s => s.id));
		expect(live.model.facts.dataVersion).toBe(whole.model.facts.dataVersion);
		// Then it follows as any live store: nothing committed, nothing read.
		expect(live.refresh()).toBe(false);
		// A second call has nothing to do.
		await live.analyseFirst();
		expect(published).toHaveLength(1);
	});

	it('publishes nothing when the view closed before the analysis (q during start-up)', async () => {
		const db = await heldIncident();
		const live = LiveStore.openPreview(location(db), {watch: false}, 5);
		const published: LiveModel[] = [];
		live.subscribe(m => published.push(m));
		const analysed = live.analyseFirst();
		live.close();
		await analysed;
		expect(published).toEqual([]);
		expect(live.model.analysing).toBeDefined();
	});

	it('reports what was written between the preview and the full read as activity (after hfx started)', async () => {
		const db = path.join(dir, `w${n++}`, 'state.db');
		fs.mkdirSync(path.dirname(db));
		const writer = new WriterProcess(db);
		cleanups.push(() => writer.kill());
		await writer.started();
		const keyed = (i: number) => ({
			source: 'telegram',
			userId: `u${i}`,
			sessionKey: `agent:main:telegram:dm:${7000 + i}`,
			chatId: String(7000 + i),
			chatType: 'dm',
			startedAt: T0 + i * 600,
		});
		const ids: string[] = [];
		for (let i = 0; i < 8; i++) {
			ids.push(await writer.create(keyed(i)));
		}

		const live = LiveStore.openPreview(location(db), {watch: false}, 5);
		cleanups.push(() => live.close());
		// While the view shows the preview: a new session, messages in a row older than the preview's, a previewed row
		// ended.
		const created = await writer.create(keyed(8));
		await writer.send({op: 'messages', id: ids[0]!, messages: [{timestamp: T0 + 9000}, {timestamp: T0 + 9001}]});
		await writer.send({op: 'end', id: ids[7]!, at: T0 + 9002, reason: 'agent_close'});
		await live.analyseFirst();

		const events = live.model.activity.map(e => `${e.kind} ${e.subject} ${e.burst?.messages ?? e.count ?? ''}`.trim());
		expect(events).toEqual([`messages ${ids[0]} 2`, `ended ${ids[7]}`, `created ${created}`]);
		// The first refresh after it (the store's signature moved since the open) tells nothing twice.
		live.refresh();
		await new Promise(resolve => setTimeout(resolve, 100));
		expect(live.model.activity.map(e => `${e.kind} ${e.subject}`)).toEqual(events.map(e => e.replace(/ 2$/, '')));
	});
});
