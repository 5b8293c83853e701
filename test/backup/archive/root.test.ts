/**
 * The Hermes root inside an archive without an hfx manifest (source/backup/archive/root.ts): the
 * folder holding state.db and/or profiles/<name>/state.db; stores nested inside it (its profiles,
 * quick snapshots, pre-restore copies) belong to it; two roots apart are ambiguous.
 */
import {describe, expect, it} from 'vitest';
import {findHermesRoot, holdsNoStore, underRoot} from '../../../source/backup/archive/root.js';

describe('findHermesRoot', () => {
	it('finds the volume, home, inside and deep-prefix roots', () => {
		expect(findHermesRoot(['data/state.db', 'data/profiles/work/state.db', 'data/config.yaml'])).toEqual({
			ok: true,
			root: 'data',
		});
		expect(findHermesRoot(['.hermes/profiles/x/state.db', '.hermes/SOUL.md'])).toEqual({ok: true, root: '.hermes'});
		expect(findHermesRoot(['state.db', 'profiles/x/state.db'])).toEqual({ok: true, root: ''});
		expect(findHermesRoot(['var/lib/docker/volumes/hermes/_data/state.db'])).toEqual({
			ok: true,
			root: 'var/lib/docker/volumes/hermes/_data',
		});
	});

	it("counts a home's own quick snapshots, pre-restore copies and profiles as part of it, not as roots", () => {
		const names = [
			'.hermes/state.db',
			'.hermes/state-snapshots/20261201-075836/state.db',
			'.hermes/backups/pre-restore-20261201-090000/state.db',
			'.hermes/profiles/w/state.db',
			'.hermes/profiles/w/state-snapshots/1/state.db',
		];
		expect(findHermesRoot(names)).toEqual({ok: true, root: '.hermes'});
	});

	it('refuses two roots side by side, and none', () => {
		expect(findHermesRoot(['volumes/a/state.db', 'volumes/b/profiles/x/state.db'])).toEqual({
			ok: false,
			why: 'ambiguous',
			candidates: ['volumes/a', 'volumes/b'],
		});
		expect(findHermesRoot(['etc/hosts', 'state.db.bak'])).toEqual({ok: false, why: 'none', candidates: []});
	});

	it("takes Hermes' own zip prefix (.hermes/ or hermes/ around everything) when the zip holds no database", () => {
		expect(findHermesRoot(['hermes/config.yaml', 'hermes/.env'], {hermesPrefix: true})).toEqual({
			ok: true,
			root: 'hermes',
		});
		expect(findHermesRoot(['config.yaml', 'x/y'], {hermesPrefix: true})).toEqual({ok: true, root: ''});
	});

	it('maps a member under the root to its path under the target; outside is null', () => {
		expect(underRoot('data/profiles/w/state.db', 'data')).toBe('profiles/w/state.db');
		expect(underRoot('database/state.db', 'data')).toBeNull();
		expect(underRoot('state.db', '')).toBe('state.db');
	});
});

describe('holdsNoStore', () => {
	it(
		'an empty or config-only tree holds no store; a store anywhere, or two ' + 'apart (ambiguous, not absent), does',
		() => {
			expect(holdsNoStore([])).toBe(true);
			expect(holdsNoStore(['config.yaml', '.env', 'skills/a/SKILL.md'])).toBe(true);
			expect(holdsNoStore(['state.db.bak', 'state.db-wal'])).toBe(true);
			expect(holdsNoStore(['state.db'])).toBe(false);
			expect(holdsNoStore(['profiles/work/state.db', 'config.yaml'])).toBe(false);
			expect(holdsNoStore(['a/state.db', 'b/state.db'])).toBe(false);
		},
	);
});
