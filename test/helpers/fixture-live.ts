/**
 * A live store on a private copy of the real-Hermes v21 fixture (test/fixtures/hermes-v21-incident) (not watched: tests
 * refresh
 * it themselves), and how to close it and remove the copy.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {LiveStore} from '../../source/live/live.js';
import {ROOT} from './writer.js';

export function openFixtureLive(prefix: string): {live: LiveStore; close: () => void} {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), path.join(dir, 'state.db'));
	const live = LiveStore.open({path: path.join(dir, 'state.db'), owner: 'default', label: 'fixture'}, {watch: false});
	return {
		live,
		close() {
			live.close();
			fs.rmSync(dir, {recursive: true, force: true});
		},
	};
}
