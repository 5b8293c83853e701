/**
 * Stores AFTER the restart (issue #23), each a private temp copy moved on by a real second process
 * (source/simulator/writer-process.ts applying source/simulator/restart.ts's gateway steps):
 *
 * - real-Hermes fixtures resumed on their zombie, with new turns 3 days after the orphan's last message:
 *   `v21IncidentAfterRestart()` (test/fixtures/hermes-v21-incident) and
 *   `generationsIncidentAfterRestart()` (the whole test/fixtures/hermes-generations/root, profiles too,
 *   kept in DELETE journal mode);
 * - simulator stores (v30): `simulatedIncident({restarted, orphanSource, platformIds})` before or after
 *   the restart, and the look-alikes that are not a rollback that already happened:
 *   `simulatedCompressionRotation()`, `simulatedResetNew()`, `simulatedResetPromotion()`,
 *   `simulatedSpoolReplay()`;
 * - a legacy (v21-shape) store whose finder resumed an older keyed sibling: `legacySiblingAfterRestart()`.
 *
 * Every builder returns the copy's paths and ids and a `remove()`; `useBuilt(build)` makes one in
 * beforeAll and removes it in afterAll. Everything here is in the repository.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll} from 'vitest';
import type {Turn} from '../../source/simulator/restart.js';
import type {NewMessage, NewSession} from '../../source/simulator/store-writer.js';
import {T0} from '../fixtures/scenarios.js';
import {ROOT, WriterProcess} from './writer.js';

const DAY = 86_400;

type Built = {
	/** The temp folder holding the copy (removed by `remove()`). */
	dir: string;
	/** The Hermes home: the folder of the (root) state.db. */
	home: string;
	/** The store the steps were written to. */
	db: string;
	sessionKey: string;
	/** The restart's structural save (null where nothing restarted). */
	restartAt: number | null;
	remove: () => void;
};

/** The #82616 shape: the zombie K (routed, resumed after the restart) and the orphan O (the real conversation). */
export type IncidentStore = Built & {zombie: string; orphan: string};

/** A look-alike: the row that held the chat before the step and the row the routing names after it. */
export type LookalikeStore = Built & {previous: string; routed: string};

/** Two turns (a user line and its reply each), the first at `at`, the next a minute later. */
export function twoTurns(at: number, firstPlatformId?: number): Turn[] {
	const id = (n: number) => (firstPlatformId === undefined ? undefined : String(firstPlatformId + n));
	return [
		{role: 'user', content: 'are you still looking at the cache bug from monday?', at, platformMessageId: id(0)},
		{role: 'assistant', content: 'Yes: the deploy logs from monday show the cache warming twice.', at: at + 3},
		{role: 'user', content: 'we fixed that on thursday, remember?', at: at + 60, platformMessageId: id(1)},
		{role: 'assistant', content: 'I have no record of a fix on thursday in this conversation.', at: at + 64},
	];
}

function tempDir(tag: string): string {
	return fs.mkdtempSync(path.join(os.tmpdir(), `hfx-post-restart-${tag}-`));
}

/** Runs the commands in a fresh writer process on `db`, then closes it cleanly; the replies' ids in order. */
async function inWriter(
	db: string,
	options: ConstructorParameters<typeof WriterProcess>[1],
	body: (w: WriterProcess) => Promise<void>,
): Promise<void> {
	const w = new WriterProcess(db, options);
	try {
		await w.started();
		await body(w);
		await w.send({op: 'close'});
	} finally {
		await w.kill();
	}
}

const V21 = {
	key: 'agent:main:telegram:dm:777001',
	zombie: '20260807_050620_46fab954',
	orphan: '20260807_052242_427c496c',
	orphanLast: 1_786_223_613.169_43,
};

/** The v21 incident fixture (before the restart), its chat and rows, for tests that move it on live. */
export const INCIDENT_STORE = path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db');
export const INCIDENT_CHAT = V21.key;
/** The keyed row a restart resumes (the zombie before the restart). */
export const INCIDENT_ZOMBIE = V21.zombie;
/** The keyless row holding the 798-message conversation the restart skips. */
export const INCIDENT_ORPHAN = V21.orphan;
const V21_RESTART = Math.round(V21.orphanLast) + 3 * DAY;
/**
 * The gateway's restart on the v21 fixture (§1.1 steps 5–7), as the writer process's command: resume the zombie, two
 * turns.
 */
export const INCIDENT_RESTART = {
	op: 'resume-after-restart',
	step: {sessionKey: V21.key, resumedId: V21.zombie, restartAt: V21_RESTART, turns: twoTurns(V21_RESTART + 2)},
} as const;

/** A copy of the incident fixture (before the restart) at dir/state.db; its path. */
export function copyIncident(dir: string): string {
	fs.mkdirSync(dir, {recursive: true});
	const db = path.join(dir, 'state.db');
	fs.copyFileSync(INCIDENT_STORE, db);
	return db;
}

/** A writer (the gateway's side) open on a copy of the incident store, ready to send INCIDENT_RESTART. */
export async function incidentWriter(db: string): Promise<WriterProcess> {
	// WAL, as a live gateway on a current SQLite runs it: the live tests follow its frames.
	const writer = new WriterProcess(db, {shape: 'v21'});
	await writer.started();
	return writer;
}

/** A copy of the incident fixture at dir/state.db moved to its post-restart state, the writer closed; its path. */
export async function postRestartIncident(dir: string): Promise<string> {
	const db = copyIncident(dir);
	await inWriter(db, {shape: 'v21', journal: 'delete'}, async w => {
		await w.send(INCIDENT_RESTART);
	});
	return db;
}

/**
 * The v21 incident fixture, resumed on its zombie (what its finder returns) with two turns 3 days after the orphan's
 * last message.
 */
export async function v21IncidentAfterRestart(): Promise<IncidentStore> {
	const dir = tempDir('v21');
	const db = await postRestartIncident(dir);
	const restartAt = V21_RESTART;
	return {
		dir,
		home: dir,
		db,
		sessionKey: V21.key,
		restartAt,
		zombie: V21.zombie,
		orphan: V21.orphan,
		remove: () => fs.rmSync(dir, {recursive: true, force: true}),
	};
}

const GEN = {
	key: 'agent:main:telegram:dm:880042',
	zombie: '20260901_080000_70a457f3',
	orphan: '20260901_080920_ec6b3f75',
	orphanLast: 1_788_251_725,
};

/**
 * The generations root (profiles too, DELETE journal), chat 880042 resumed on INC_zombie with two turns 3 days after
 * INC_orphan's last message.
 */
export async function generationsIncidentAfterRestart(): Promise<IncidentStore> {
	const dir = tempDir('generations');
	const home = path.join(dir, 'root');
	fs.cpSync(path.join(ROOT, 'test/fixtures/hermes-generations/root'), home, {recursive: true});
	const db = path.join(home, 'state.db');
	const restartAt = GEN.orphanLast + 3 * DAY;
	await inWriter(db, {shape: 'v25', journal: 'delete'}, async w => {
		await w.send({
			op: 'resume-after-restart',
			step: {sessionKey: GEN.key, resumedId: GEN.zombie, restartAt, turns: twoTurns(restartAt + 2)},
		});
	});
	return {
		dir,
		home,
		db,
		sessionKey: GEN.key,
		restartAt,
		zombie: GEN.zombie,
		orphan: GEN.orphan,
		remove: () => fs.rmSync(dir, {recursive: true, force: true}),
	};
}

export const SIM_KEY = 'agent:main:telegram:dm:777001';
/** A second chat in the same routing scope, untouched by every step (its row and entry stay as they were). */
export const SIM_OTHER_KEY = 'agent:main:discord:group:9001';

const TELEGRAM = {
	source: 'telegram',
	userId: 'u-teknium',
	sessionKey: SIM_KEY,
	chatId: '777001',
	chatType: 'dm',
	displayName: 'Teknium',
	profileName: 'default',
	originJson:
		'{"platform": "telegram", "chat_id": "777001", "chat_name": "Teknium", ' +
		'"chat_type": "dm", "user_id": "u-teknium", "user_name": "Teknium", ' +
		'"thread_id": null, "chat_topic": null}',
} satisfies Omit<NewSession, 'startedAt'>;

/**
 * `count` alternating user/assistant messages over [from, to]; user rows carry platform ids from `firstId` when given.
 */
function dialogue(count: number, from: number, to: number, firstId?: number): NewMessage[] {
	const step = (to - from) / (count - 1);
	return Array.from({length: count}, (_, i) => ({
		role: i % 2 === 0 ? 'user' : 'assistant',
		content: `${i % 2 === 0 ? 'question' : 'answer'} ${i + 1}`,
		timestamp: from + i * step,
		platformMessageId: firstId !== undefined && i % 2 === 0 ? String(firstId + i / 2) : null,
	}));
}

/** A v30 simulator store with the keyed chat K (10 messages over T0+10..T0+600, routed) and another chat; returns K. */
async function keyedChat(w: WriterProcess, platformIds: boolean): Promise<string> {
	const zombie = await w.create({...TELEGRAM, startedAt: T0});
	await w.send({op: 'routing', key: SIM_KEY, id: zombie, at: T0});
	await w.send({op: 'messages', id: zombie, messages: dialogue(10, T0 + 10, T0 + 600, platformIds ? 1001 : undefined)});
	const other = await w.create({
		source: 'discord',
		userId: 'u-bob',
		sessionKey: SIM_OTHER_KEY,
		chatId: '9001',
		chatType: 'group',
		displayName: '#ops',
		profileName: 'default',
		startedAt: T0 - 3600,
	});
	await w.send({op: 'routing', key: SIM_OTHER_KEY, id: other, at: T0 - 3600});
	await w.send({op: 'conversation', id: other, count: 6, from: T0 - 3500, to: T0 - 1200});
	return zombie;
}

export type IncidentVariant = {
	/** Resume the zombie after the restart and write two turns into it (default true). */
	restarted?: boolean;
	/** The orphan's source: its platform, or 'unknown' (the lazy accounting writer made the row, §1.3 point 2). */
	orphanSource?: 'telegram' | 'unknown';
	/** Platform message ids on user rows: K's 1001–1005 before the gap, O's 1006–1015 inside it, K's 1016– after. */
	platformIds?: boolean;
};

/** The orphan's messages: 20 over T0+665..T0+3600; the restart 3 days after. */
const ORPHAN_LAST = T0 + 3600;

/**
 * The simulated #82616 incident (v30): K keyed and routed, O keyless from T0+660 holding the conversation; after the
 * restart if asked.
 */
export async function simulatedIncident(variant: IncidentVariant = {}): Promise<IncidentStore> {
	const dir = tempDir('incident');
	const db = path.join(dir, 'state.db');
	const restarted = variant.restarted ?? true;
	const restartAt = ORPHAN_LAST + 3 * DAY;
	let zombie = '';
	let orphan = '';
	await inWriter(db, {}, async w => {
		zombie = await keyedChat(w, variant.platformIds ?? false);
		orphan = await w.create({source: variant.orphanSource ?? 'telegram', startedAt: T0 + 660});
		await w.send({
			op: 'messages',
			id: orphan,
			messages: dialogue(20, T0 + 665, ORPHAN_LAST, variant.platformIds ? 1006 : undefined),
		});
		if (restarted) {
			await w.send({
				op: 'resume-after-restart',
				step: {
					sessionKey: SIM_KEY,
					resumedId: zombie,
					restartAt,
					turns: twoTurns(restartAt + 2, variant.platformIds ? 1016 : undefined),
				},
			});
		}
	});
	return {
		dir,
		home: dir,
		db,
		sessionKey: SIM_KEY,
		restartAt: restarted ? restartAt : null,
		zombie,
		orphan,
		remove: () => fs.rmSync(dir, {recursive: true, force: true}),
	};
}

/** A v30 store with the keyed chat, then one look-alike step by `step(w, K)`, which returns the routed row. */
async function lookalike(
	tag: string,
	restartAt: number | null,
	step: (w: WriterProcess, previous: string) => Promise<string>,
): Promise<LookalikeStore> {
	const dir = tempDir(tag);
	const db = path.join(dir, 'state.db');
	let previous = '';
	let routed = '';
	await inWriter(db, {}, async w => {
		previous = await keyedChat(w, false);
		routed = await step(w, previous);
	});
	return {
		dir,
		home: dir,
		db,
		sessionKey: SIM_KEY,
		restartAt,
		previous,
		routed,
		remove: () => fs.rmSync(dir, {recursive: true, force: true}),
	};
}

/** A compression rotation at T0+700 (parent ended 'compression', keyed child), two turns in the child right after. */
export async function simulatedCompressionRotation(): Promise<LookalikeStore> {
	return lookalike(
		'compression',
		null,
		async (w, parent) =>
			(
				await w.send({
					op: 'compression-rotation',
					step: {sessionKey: SIM_KEY, parentId: parent, at: T0 + 700, turns: twoTurns(T0 + 705)},
				})
			).id as string,
	);
}

/** `/new` a day after K's last message (old row 'session_reset', new keyed row with _reset_from), two turns there. */
export async function simulatedResetNew(): Promise<LookalikeStore> {
	return lookalike(
		'reset-new',
		null,
		async (w, old) =>
			(
				await w.send({
					op: 'reset-new',
					step: {sessionKey: SIM_KEY, oldId: old, at: T0 + 600 + DAY, turns: twoTurns(T0 + 605 + DAY)},
				})
			).id as string,
	);
}

/**
 * A restart 3 days later whose reset policy promotes K ('idle') and mints a fresh row routed instead; two turns there.
 */
export async function simulatedResetPromotion(): Promise<LookalikeStore> {
	const restartAt = T0 + 600 + 3 * DAY;
	return lookalike(
		'reset-promotion',
		restartAt,
		async (w, recovered) =>
			(
				await w.send({
					op: 'reset-promotion',
					step: {sessionKey: SIM_KEY, recoveredId: recovered, restartAt, turns: twoTurns(restartAt + 2)},
				})
			).id as string,
	);
}

/**
 * A restart 3 days later that resumes K (the newest: no orphan), two turns, then the shutdown spool (2 user messages of
 * T0+900) replayed into K with their old ts.
 */
export async function simulatedSpoolReplay(): Promise<LookalikeStore> {
	const restartAt = T0 + 600 + 3 * DAY;
	return lookalike('spool-replay', restartAt, async (w, k) => {
		await w.send({
			op: 'resume-after-restart',
			step: {sessionKey: SIM_KEY, resumedId: k, restartAt, turns: twoTurns(restartAt + 2)},
		});
		await w.send({
			op: 'replay-spool',
			step: {
				sessionId: k,
				messages: [
					{content: 'did the backup finish?', ts: T0 + 900},
					{content: 'and the restore test?', ts: T0 + 905},
				],
			},
		});
		return k;
	});
}

/** A legacy store (v21 shape) whose finder resumed an older keyed sibling over a newer one (scenario P6). */
export type SiblingStore = Built & {resumed: string; passedOver: string};

/**
 * Scenario P6: N (keyed, live, started T0, talking until T0+2 days) and K (keyed, live, started an
 * hour later, quiet after T0+3700: a zombie holding the key). The legacy finder takes the newest
 * started_at, so the restart 3 days later resumes K over N, and two turns go there.
 */
export async function legacySiblingAfterRestart(): Promise<SiblingStore> {
	const dir = tempDir('sibling');
	const db = path.join(dir, 'state.db');
	const restartAt = T0 + 5 * DAY;
	let resumed = '';
	let passedOver = '';
	await inWriter(db, {shape: 'v21'}, async w => {
		passedOver = await w.create({...TELEGRAM, startedAt: T0});
		await w.send({op: 'messages', id: passedOver, messages: dialogue(40, T0 + 10, T0 + 2 * DAY)});
		resumed = await w.create({...TELEGRAM, startedAt: T0 + 3600});
		await w.send({op: 'messages', id: resumed, messages: dialogue(4, T0 + 3610, T0 + 3700)});
		await w.send({
			op: 'resume-after-restart',
			step: {sessionKey: SIM_KEY, resumedId: resumed, restartAt, turns: twoTurns(restartAt + 2)},
		});
	});
	return {
		dir,
		home: dir,
		db,
		sessionKey: SIM_KEY,
		restartAt,
		resumed,
		passedOver,
		remove: () => fs.rmSync(dir, {recursive: true, force: true}),
	};
}

/** One built store for a test file: made in beforeAll, removed in afterAll. Read its fields inside tests. */
export function useBuilt<T extends Built>(build: () => Promise<T>): {readonly current: T} {
	const holder = {current: undefined as unknown as T};
	beforeAll(async () => {
		holder.current = await build();
	});
	afterAll(() => {
		holder.current?.remove();
	});
	return holder;
}
