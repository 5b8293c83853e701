/**
 * A Hermes root with profiles, written by real second processes: `default` with one quiet chat and
 * `profiles/work` whose writer is handed back to write the incident (a compression rotation, then
 * the conversation continuing in a row without routing identity: a chat at rollback risk).
 */
import fs from 'node:fs';
import path from 'node:path';
import {T0} from '../fixtures/scenarios.js';
import {WriterProcess} from './writer.js';

export const HOME_KEY = 'agent:main:telegram:dm:424242';
const identity = {
	source: 'telegram',
	userId: 'u-op',
	sessionKey: HOME_KEY,
	chatId: '424242',
	chatType: 'dm',
	displayName: 'Operator',
};

/** The root's two stores, each with its writer (the caller kills them); `quiet` is default's one session. */
export async function homeRoot(root: string): Promise<{main: WriterProcess; work: WriterProcess; quiet: string}> {
	fs.mkdirSync(path.join(root, 'profiles', 'work'), {recursive: true});
	const main = new WriterProcess(path.join(root, 'state.db'));
	const work = new WriterProcess(path.join(root, 'profiles', 'work', 'state.db'));
	await Promise.all([main.started(), work.started()]);
	const quiet = await main.create({source: 'cli', startedAt: T0 - 3600});
	await main.send({op: 'conversation', id: quiet, count: 2, from: T0 - 3599, to: T0 - 3598});
	return {main, work, quiet};
}

/**
 * The incident, written by the store's own writer: its tip (what a restart resumes) and the orphan holding the newest
 * message.
 */
export async function writeIncident(writer: WriterProcess): Promise<{tip: string; orphan: string}> {
	const first = await writer.create({...identity, startedAt: T0});
	await writer.send({op: 'conversation', id: first, count: 12, from: T0 + 5, to: T0 + 600});
	await writer.send({op: 'end', id: first, at: T0 + 800, reason: 'compression'});
	const tip = await writer.create({...identity, parentSessionId: first, startedAt: T0 + 801});
	await writer.send({op: 'conversation', id: tip, count: 4, from: T0 + 810, to: T0 + 2000});
	const orphan = await writer.create({source: 'telegram', startedAt: T0 + 2060});
	await writer.send({op: 'conversation', id: orphan, count: 40, from: T0 + 2070, to: T0 + 9000});
	return {tip, orphan};
}
