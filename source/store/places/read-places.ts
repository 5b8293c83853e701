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

/** Each live session's newest message time (what a capture's turns are compared with). */
export function liveNewestOf(sessions: readonly SessionRecord[]): Map<string, number | null> {
	const out = new Map<string, number | null>();
	for (const s of sessions) {
		out.set(s.id, s.newestMessageAt);
	}

	return out;
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
