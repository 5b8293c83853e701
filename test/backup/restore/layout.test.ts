/**
 * An archive's layout in a restore's words (source/backup/restore/layout.ts): the refusal when no
 * single Hermes root is inside, where each member lands, and the lines a restore and its dry run
 * print. Pure: plain inputs, exact outputs.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {emptyLayout, layoutLines, mappingOf, refuseRoot} from '../../../source/backup/restore/layout.js';
import type {SourceMember} from '../../../source/backup/restore/types.js';
import {FailClosed} from '../../../source/ground/errors.js';

function member(rel: string, archivePath: string): SourceMember {
	return {path: rel, archivePath, size: 1, mode: 0o644, sha256: null, crc32: null, kind: 'file'};
}

const TARGET = '/restore/here';

describe('emptyLayout', () => {
	it('has its root and nothing left out or folded', () => {
		expect(emptyLayout('data')).toEqual({root: 'data', outside: [], runtime: [], sidecars: [], folded: []});
		expect(emptyLayout(null).root).toBeNull();
	});
});

describe('refuseRoot', () => {
	it('two roots: refused, naming each (the top as "its top"), nothing guessed', () => {
		const e = refuseRoot('/a/b.tar.gz', {why: 'ambiguous', candidates: ['', 'volumes/b']});
		expect(e).toBeInstanceOf(FailClosed);
		expect(e.toJSON()).toEqual({
			file: '/a/b.tar.gz',
			kind: 'no-hermes-root',
			reason:
				'the archive holds more than one Hermes root (its top, volumes/b/): hfx will not guess which to restore; ' +
				'nothing was written',
			next:
				'extract the one you mean by hand into a scratch folder (tar x … ROOT), check it with hfx verify, ' +
				'then restore from there',
		});
		expect(e.exitCode).toBe(2);
	});

	it('no root: refused, with the command to see what the archive holds, by its own name', () => {
		const e = refuseRoot('/a/b.tar.gz', {why: 'none', candidates: []});
		expect(e.kind).toBe('no-hermes-root');
		expect(e.reason).toBe(
			'no Hermes root in the archive (no state.db and no profiles/*/state.db in any folder); nothing was written',
		);
		expect(e.next).toBe('check what it holds (tar tzf b.tar.gz); restore a backup of a Hermes home or volume');
	});
});

describe('mappingOf', () => {
	it('maps each member to its path under the target, keeping the archive path', () => {
		const members = [member('state.db', 'data/state.db'), member('profiles/w/state.db', 'data/profiles/w/state.db')];
		expect(mappingOf(members, emptyLayout('data'), TARGET)).toEqual({
			root: 'data',
			entries: [
				{archive: 'data/state.db', target: path.join(TARGET, 'state.db')},
				{archive: 'data/profiles/w/state.db', target: path.join(TARGET, 'profiles', 'w', 'state.db')},
			],
		});
	});
});

describe('layoutLines', () => {
	it("says where the root is, each database's destination, and what is not restored or was folded", () => {
		const members = [
			member('config.yaml', 'data/config.yaml'),
			member('state.db', 'data/state.db'),
			member('profiles/w/state.db', 'data/profiles/w/state.db'),
		];
		const layout = {
			...emptyLayout('data'),
			outside: ['etc/passwd', 'etc/hosts'],
			runtime: ['data/gateway.pid', 'data/gateway_state.json'],
			sidecars: ['data/state.db-shm'],
			folded: [
				{db: 'state.db', wal: 'data/state.db-wal', frames: 1, walBytes: 4152},
				{db: 'profiles/w/state.db', wal: 'data/profiles/w/state.db-wal', frames: 0, walBytes: 0},
			],
		};
		expect(layoutLines(mappingOf(members, layout, TARGET), layout, TARGET)).toEqual([
			`layout: the Hermes root is data/ in the archive: data/… → ${TARGET}/… (3 files)`,
			`  data/state.db → ${TARGET}/state.db`,
			`  data/profiles/w/state.db → ${TARGET}/profiles/w/state.db`,
			'not restored: 2 members outside the Hermes root (first: etc/passwd)',
			'not restored: data/gateway.pid, data/gateway_state.json (runtime state of the machine the archive was ' +
				"taken on: PIDs, locks, the gateway's last run state; Hermes' import skips it too)",
			'not restored: data/state.db-shm (a SQLite sidecar: never written as a file)',
			'data/state.db-wal: 1 committed frame folded into the restored state.db',
			'data/profiles/w/state.db-wal: no committed frames (nothing to fold into profiles/w/state.db)',
		]);
	});

	it("the archive's top as the root, and an hfx archive (no root: its manifest names the paths) says no layout", () => {
		const members = [member('state.db', 'state.db')];
		expect(layoutLines(mappingOf(members, emptyLayout(''), TARGET), emptyLayout(''), TARGET)).toEqual([
			`layout: the archive's top is the Hermes root: … → ${TARGET}/… (1 file)`,
			`  state.db → ${TARGET}/state.db`,
		]);
		expect(layoutLines(mappingOf(members, emptyLayout(null), TARGET), emptyLayout(null), TARGET)).toEqual([]);
	});
});
