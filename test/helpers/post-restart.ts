/**
 * The v21 incident fixture moved to its post-restart state as the gateway does it
 * (hermes-incidents.md §1.1 step 7): three days after the orphan's last message, the gateway has
 * resumed the zombie and written two turns into it. The same rows as the hand-built copy the
 * issue was measured on. Written by a real second process (the simulator's writer), never by hfx.
 */
import fs from 'node:fs';
import path from 'node:path';
import {ROOT, WriterProcess} from './writer.js';

export const INCIDENT_STORE = path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db');
export const INCIDENT_CHAT = 'agent:main:telegram:dm:777001';
/** The keyed row a restart resumes (the zombie before the restart). */
export const INCIDENT_ZOMBIE = '20260807_050620_46fab954';
/** The keyless row holding the 798-message conversation the restart skips. */
export const INCIDENT_ORPHAN = '20260807_052242_427c496c';
/** The orphan's last message; the restart comes three days later. */
const ORPHAN_LAST = 1_786_223_613;
const RESTARTED = ORPHAN_LAST + 3 * 86_400;

const TURNS: Array<[string, string, number]> = [
	['user', 'good morning, where were we?', 0],
	['assistant', 'we were setting up the cache (from three days ago)', 5],
	['user', 'no, that was last week', 60],
	['assistant', 'sorry, I do not see it', 65],
];

/** The post-restart turns, as SQL the writer runs in one transaction. */
export const RESTART_TURNS_SQL = [
	'BEGIN IMMEDIATE;',
	...TURNS.map(([role, content, after]) => `INSERT INTO messages (session_id, role, content, timestamp) VALUES ('${INCIDENT_ZOMBIE}', '${role}', '${content}', ${RESTARTED + after});`),
	`UPDATE sessions SET message_count = message_count + ${TURNS.length} WHERE id = '${INCIDENT_ZOMBIE}';`,
	'COMMIT;',
].join('\n');

/** A copy of the incident fixture (before the restart) at dir/state.db; its path. */
export function copyIncident(dir: string): string {
	fs.mkdirSync(dir, {recursive: true});
	const db = path.join(dir, 'state.db');
	fs.copyFileSync(INCIDENT_STORE, db);
	return db;
}

/** A writer (the gateway's side) open on a copy of the incident store, ready to write the post-restart turns. */
export async function incidentWriter(db: string): Promise<WriterProcess> {
	const writer = new WriterProcess(db, {shape: 'v21'});
	await writer.started();
	return writer;
}

/** A copy of the incident fixture moved to its post-restart state, the writer closed; its path. */
export async function postRestartIncident(dir: string): Promise<string> {
	const db = copyIncident(dir);
	const writer = await incidentWriter(db);
	await writer.send({op: 'exec', sql: RESTART_TURNS_SQL});
	await writer.send({op: 'close'}).catch(() => undefined);
	await writer.kill();
	return db;
}
