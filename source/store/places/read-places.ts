/**
 * Every place beside one store where Hermes keeps the conversation when state.db did not take it
 * (hermes-incidents §2), inventoried read-only into plain data (forensics/places.ts). Run after
 * the store's own read is over: nothing here touches state.db, its -wal or its -shm.
 */
import path from 'node:path';
import type {Places} from '../../forensics/places.js';
import type {SessionRecord} from '../../forensics/types.js';
import {readBeforeImages} from './before-images.js';
import {readDiverted} from './diverted.js';
import {gatewayStart} from './gateway-start.js';
import {readCaptures} from './retired-wal.js';
import {readSpool} from './spool.js';

/** Each live session's newest message time by id: what diverted transcripts' and captures' turns are compared with. */
export type LiveNewest = Pick<ReadonlyMap<string, number | null>, 'get' | 'has'>;

/**
 * Each live session's newest message time, indexed on the first lookup. Most homes hold nothing that asks (no diverted
 * transcript, no capture), and the live view reads the places every 10 s: the index of every session was made and
 * dropped each time (21,516 entries on the bench store), and its loop compiled again by TurboFan's on-stack replacement
 * after each mark-compact (issue #26: 6 times in 50 s of following, --log-code).
 */
export function liveNewestOf(sessions: readonly SessionRecord[]): LiveNewest {
	let index: Map<string, number | null> | undefined;
	const built = (): Map<string, number | null> => {
		if (!index) {
			index = new Map();
			for (const s of sessions) {
				index.set(s.id, s.newestMessageAt);
			}
		}

		return index;
	};

	return {get: id => built().get(id), has: id => built().has(id)};
}

export function readPlaces(storePath: string, sessions: readonly SessionRecord[]): Places {
	const home = path.dirname(path.resolve(storePath));
	const notes: string[] = [];
	const liveNewest = liveNewestOf(sessions);
	return {
		home,
		gatewayStart: gatewayStart(home),
		diverted: readDiverted(home, liveNewest, notes),
		spool: readSpool(home, notes),
		captures: readCaptures(storePath, liveNewest, notes),
		before: readBeforeImages(home, storePath, notes),
		notes,
	};
}
