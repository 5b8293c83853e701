/**
 * The places beside a store, read in one go (store/places/read-places.ts), and the live sessions' newest message times
 * they are compared with: indexed only when something beside the store asks (issue #26: the live view reads the places
 * every 10 s, and made and dropped an index of every session each time).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import type {SessionRecord} from '../../../source/forensics/types.js';
import {liveNewestOf, readPlaces} from '../../../source/store/places/read-places.js';
import {T0, session} from '../../helpers/records.js';

/** Sessions that count how often they are walked. */
function counted(rows: SessionRecord[]): {sessions: SessionRecord[]; walks: () => number} {
	let walks = 0;
	const sessions = [...rows];
	const walk = sessions[Symbol.iterator].bind(sessions);
	Object.defineProperty(sessions, Symbol.iterator, {
		value: () => {
			walks++;
			return walk();
		},
	});
	return {sessions, walks: () => walks};
}

describe('readPlaces', () => {
	let home: string;
	beforeEach(() => {
		home = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-places-'));
	});
	afterEach(() => {
		fs.rmSync(home, {recursive: true, force: true});
	});

	it('does not walk the sessions when nothing beside the store asks for their newest messages', () => {
		const {sessions, walks} = counted([session({id: 'a'}), session({id: 'b'})]);
		const places = readPlaces(path.join(home, 'state.db'), sessions);
		expect(places.diverted).toEqual([]);
		expect(places.captures).toEqual([]);
		expect(walks()).toBe(0);
	});

	it("compares a diverted transcript with its session's newest message, walking the sessions once", () => {
		const id = '20231114_222000_04c1d6c6';
		const {sessions, walks} = counted([session({id: 'other'}), session({id, newestMessageAt: T0 + 600})]);
		fs.mkdirSync(path.join(home, 'sessions'));
		for (const name of [id, 'unknown']) {
			const file = path.join(home, 'sessions', `${name}.jsonl`);
			fs.writeFileSync(file, `{"timestamp": ${T0 + 30}}\n`);
			fs.utimesSync(file, T0 + 60, T0 + 60);
		}

		const places = readPlaces(path.join(home, 'state.db'), sessions);
		const older = Object.fromEntries(places.diverted.map(d => [d.sessionId, d.olderThanRow]));
		expect(older).toEqual({[id]: true, unknown: false});
		expect(walks()).toBe(1);
	});
});

describe('liveNewestOf', () => {
	it("answers each session's newest message time by id, and nothing for an unknown id", () => {
		const newest = liveNewestOf([
			session({id: 'a', newestMessageAt: T0 + 5}),
			session({id: 'b', hasMessageRows: false}),
		]);
		expect([newest.get('a'), newest.has('b'), newest.get('b'), newest.has('c'), newest.get('c')]).toEqual([
			T0 + 5,
			true,
			null,
			false,
			undefined,
		]);
	});
});
