/**
 * Issue #27's store where the rules of the installed build decide a verdict, and a Hermes install
 * beside it as the installer lays it out (`<root>/hermes-agent`: a git checkout, or a Docker
 * image's `.hermes_build_sha`), for the tests of the installed build (scan, routing, repair, the
 * live view). The store is written by the simulator's writer, a real SQLite file; the checkout's
 * files are the ones git writes (HEAD, a loose ref or packed-refs, a worktree's pointer).
 *
 * The store: a v30 keyed donor whose last_activity_at is the garbage double of #91536 (5.49e+246)
 * and a keyless orphan that started a minute after the donor fell quiet. A build with the epoch
 * window (#91543) ignores the garbage and adopts; a build before it takes it as the donor's last
 * activity and refuses the orphan (no_predecessor).
 */
import fs from 'node:fs';
import path from 'node:path';
import {StoreWriter} from '../../source/simulator/store-writer.js';

const T0 = 1_786_060_800;
const MIN = 60;
const GARBAGE = 5.49e246;

/** A commit hermes-incidents §3.3 names as lacking #91543 (its first 8 hex; the rest filler). */
export const SHA_WITHOUT = `f31cf971${'0'.repeat(32)}`;
/** One §3.3 names as having it. */
export const SHA_WITH = `00704d08${'0'.repeat(32)}`;

export type GarbageDonorStore = {home: string; db: string; key: string; donor: string; orphan: string};

export function garbageDonorStore(home: string): GarbageDonorStore {
	fs.mkdirSync(home, {recursive: true});
	const db = path.join(home, 'state.db');
	const w = new StoreWriter(db, {shape: 'v30'});
	const key = 'agent:main:telegram:dm:77';
	const peer = {source: 'telegram', userId: 'u77', chatId: '77', chatType: 'dm'};
	const donor = w.createSession({...peer, sessionKey: key, startedAt: T0});
	w.addConversation(donor, 20, T0 + 10, T0 + 15 * MIN);
	w.db.prepare('UPDATE sessions SET last_activity_at = ? WHERE id = ?').run(GARBAGE, donor);
	w.setRouting(key, donor, T0 + 15 * MIN);
	const orphan = w.createSession({source: 'telegram', userId: 'u77', startedAt: T0 + 16 * MIN});
	w.addConversation(orphan, 30, T0 + 16 * MIN + 10, T0 + 60 * MIN);
	w.close();
	return {home, db, key, donor, orphan};
}

/** A source install at `dir`: `.git/HEAD` on a branch whose loose ref holds `sha`, and pyproject's version. */
export function sourceCheckout(dir: string, sha: string, version: string | null = '0.20.5'): void {
	fs.mkdirSync(path.join(dir, '.git/refs/heads'), {recursive: true});
	fs.writeFileSync(path.join(dir, '.git/HEAD'), 'ref: refs/heads/main\n');
	fs.writeFileSync(path.join(dir, '.git/refs/heads/main'), `${sha}\n`);
	if (version !== null) {
		fs.writeFileSync(
			path.join(dir, 'pyproject.toml'),
			`[build-system]\nrequires = ["setuptools"]\n\n[project]\nname = "hermes-agent"\nversion = "${version}"\n`,
		);
	}
}

/** The verdict on one orphan in a scan's or a repair's JSON: `adoptable from D` or `refused (KIND)`. */
export function orphanVerdict(json: any, id: string): string {
	const o = [...json.orphans, ...(json.listedRefusedLocal ?? [])].find((x: any) => x.orphanId === id);
	return o.verdict === 'adoptable' ? `adoptable from ${o.donorId}` : `refused (${o.reasonKind})`;
}
