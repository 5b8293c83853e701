/**
 * `hfx timeline CHAT --before IMAGE` through the real binary (issue #24 point 4: "the
 * after-the-restart story uses the same diff"): the simulated #82616 incident, a pre-update
 * emergency snapshot and an hfx backup taken before a restart that a second process applies
 * (the gateway resumes the zombie and writes two turns into it). The image sits on the chat's axis
 * at the time its name or manifest gives, before the restart, saying what a restart resumed then,
 * where the newest message was, and what moved since; the same facts as `hfx diff IMAGE STORE`.
 * Not one evidence byte changes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {T0} from '../fixtures/scenarios.js';
import {hfx, hfxJson} from '../helpers/cli.js';
import {folderHashes} from '../helpers/folder-hashes.js';
import {type IncidentStore, SIM_KEY, simulatedIncident, twoTurns} from '../helpers/post-restart.js';
import {WriterProcess} from '../helpers/writer.js';

const RESTART_AT = T0 + 3600 + 3 * 86_400;
/** Taken a minute before the restart, by its name (UTC). */
const EMERGENCY_AT = RESTART_AT - 60;
const EMERGENCY =
	`state.db.pre-update-emergency-` +
	`${new Date(EMERGENCY_AT * 1000).toISOString().slice(0, 19).replaceAll(':', '-')}-000000Z-4242.bak`;

let inc: IncidentStore;
let out: string;
let archive: string;
let hashes: Record<string, string>;

beforeAll(async () => {
	out = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-timeline-before-'));
	inc = await simulatedIncident({restarted: false});
	archive = path.join(out, 'before.zip');
	expect(hfx(['backup', '--home', inc.home, '-o', archive]).code).toBe(0);
	expect(hfx(['backup', '--quick', '--home', inc.home, '--label', 'before']).code).toBe(0);
	const snaps = path.join(inc.home, 'state-snapshots');
	fs.copyFileSync(path.join(snaps, fs.readdirSync(snaps)[0]!, 'state.db'), path.join(inc.home, EMERGENCY));
	const w = new WriterProcess(inc.db);
	try {
		await w.started();
		await w.send({
			op: 'resume-after-restart',
			step: {sessionKey: SIM_KEY, resumedId: inc.zombie, restartAt: RESTART_AT, turns: twoTurns(RESTART_AT + 2)},
		});
		await w.send({op: 'close'});
	} finally {
		await w.kill();
	}

	hashes = {...folderHashes(inc.home), ...folderHashes(out)};
}, 120_000);

afterAll(() => {
	inc?.remove();
	fs.rmSync(out, {recursive: true, force: true});
});

type Event = {at: number; kind: string; text: string; certainty: string; evidence: string[]};

describe('hfx timeline --before', () => {
	it('places an emergency snapshot at the time its name gives, before the restart, with what moved since', () => {
		const {code, json} = hfxJson(['timeline', SIM_KEY, '--db', inc.db, '--before', path.join(inc.home, EMERGENCY)]);
		expect(code).toBe(1);
		const events = json.events as Event[];
		const image = events.find(e => e.kind === 'before-image')!;
		expect(image).toMatchObject({at: EMERGENCY_AT, certainty: 'strong'});
		expect(image.text).toContain(`a restart would have resumed ${inc.zombie.slice(-8)}`);
		expect(image.text).toContain(`its newest message was in ${inc.orphan.slice(-8)}`);
		expect(image.evidence.join('\n')).toContain('the newest message moved');
		expect(image.evidence.join('\n')).toContain('a rollback of this chat is in the store and not in the image');
		// On the axis: before the resume the restart caused.
		const kinds = events.map(e => e.kind);
		expect(kinds.indexOf('before-image')).toBeLessThan(kinds.indexOf('resume'));
		// The same comparison hfx diff makes.
		const diff = hfxJson(['diff', path.join(inc.home, EMERGENCY), inc.db]).json;
		const chat = diff.chats.find((c: {sessionKey: string}) => c.sessionKey === SIM_KEY);
		expect(json.before.chat).toEqual(chat);
	});

	it('reads an hfx backup archive the same way (its manifest says when), and prints it in 80 columns', () => {
		const r = hfx(['timeline', SIM_KEY, '--db', inc.db, '--before', archive]);
		expect(r.code, r.stderr).toBe(1);
		expect(r.stdout).toMatch(/BEFORE\s+before-image /);
		expect(r.stdout.split('\n').filter(l => [...l].length > 80)).toEqual([]);
		const {json} = hfxJson(['timeline', SIM_KEY, '--db', inc.db, '--before', archive]);
		expect(json.before.image.kind).toBe('archive');
		expect(json.before.placed).toBe(true);
	});

	it('refuses an image that is the store itself, in one line, and changes no evidence byte', () => {
		const r = hfx(['timeline', SIM_KEY, '--db', inc.db, '--before', inc.db]);
		expect(r.code).toBe(2);
		expect(r.stderr.trim().split('\n')).toHaveLength(1);
		expect(r.stderr).toMatch(/the same store/);
		expect({...folderHashes(inc.home), ...folderHashes(out)}).toEqual(hashes);
	});
});
