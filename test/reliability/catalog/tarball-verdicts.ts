/**
 * Issue #28, point 1: a tarball of a running volume (seed 004's `tar czf … -C <parent> data`, with
 * the store's -wal and -shm in it, made by the real `tar` of a home whose writer was SIGKILLed) is
 * SOUND, gate accepts it once drilled and only for its own home, --keep covers its stamped series,
 * and a records file whose `live` and `identity` were forged never makes a stack trace. Gate and
 * backup read the home's live stores read-only to place a tarball: 0 evidence bytes changed.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {crashedHome, home} from '../fixtures.js';
import type {Fault} from '../types.js';
import {finding, ok, recordsIn, step, write} from './kit.js';

/** `tar czf DIR/NAME -C <parent of root> <root's name>`: the volume with its -wal and -shm, as seed 004 takes it. */
function tarOf(root: string, dir: string, name: string): string {
	const out = path.join(dir, name);
	const r = spawnSync('tar', ['czf', out, '-C', path.dirname(root), path.basename(root)], {encoding: 'utf8'});
	if (r.status !== 0) {
		throw new Error(`tar czf failed: ${r.stderr}`);
	}

	return out;
}

const STAMPED = (stamp: string): string => `hermes-data-${stamp}.tar.gz`;

/** The UTC stamp of now, as seed 004's `date -u +%Y%m%d-%H%M%S` writes it. */
const nowStamp = (): string => new Date().toISOString().replaceAll(/[-:]/g, '').replace('T', '-').slice(0, 15);

export const TARBALL_VERDICTS: Fault[] = [
	{
		id: 'tarball-live-volume-sound-gate',
		cls: 4,
		outcome: 'ok',
		notes:
			'a tar.gz of a volume whose agent left its -wal and -shm: verify SOUND ' +
			'with the note, backups says yes (taken live), drill, then gate passes ' +
			'for that home and prints it',
		async setup(t) {
			const volume = await crashedHome(path.join(t.dir('vol'), 'data'));
			const out = t.dir('out');
			const a = tarOf(volume.root, out, STAMPED(nowStamp()));
			return {
				evidence: [volume.root, out],
				mayWrite: recordsIn(out),
				steps: [
					ok(['verify', a], {
						match:
							/^✓ SOUND[\s\S]*its -wal holds [1-9]\d* commits?[\s\S]*data\/state\.db-wal and data\/state\.db-shm are never restored as files/,
					}),
					ok(['backups', '--home', volume.root, '-o', out], {match: /yes, just now \(taken live\)/}),
					ok(['restore', '--drill', a]),
					ok(['gate', '--home', volume.root, '-o', out], {
						check: r =>
							r.stdout.trim() === a ? null : `gate printed ${JSON.stringify(r.stdout.trim())}, not the tarball`,
					}),
				],
			};
		},
	},
	{
		id: 'tarball-gate-other-home',
		cls: 5,
		outcome: 'finding',
		notes: 'the drilled tarball of one volume never passes gate --home for another home sharing the folder',
		async setup(t) {
			const volume = await crashedHome(path.join(t.dir('vol'), 'data'));
			const other = await home(t.dir('other'));
			const out = t.dir('out');
			const a = tarOf(volume.root, out, STAMPED(nowStamp()));
			return {
				evidence: [volume.root, other.root, out],
				mayWrite: recordsIn(out),
				steps: [
					ok(['restore', '--drill', a]),
					finding(['gate', '--home', other.root, '-o', out], {
						check: r =>
							/1 backup there is of another home/.test(r.stderr)
								? null
								: `gate did not call the tarball another home's: ${r.stderr}`,
					}),
				],
			};
		},
	},
	{
		id: 'tarball-keep-series',
		cls: 5,
		outcome: 'ok',
		notes:
			'three verified stamped tarballs of the home and one nobody verified: ' +
			'backup --keep 1 prunes the two older verified ones, keeps the ' +
			'unverified one, says so',
		async setup(t) {
			const volume = await crashedHome(path.join(t.dir('vol'), 'data'));
			const out = t.dir('out');
			const names = ['20261120-030000', '20261121-030000', '20261122-030000', '20261119-030000'].map(STAMPED);
			const first = tarOf(volume.root, out, names[0]!);
			for (const n of names.slice(1)) {
				fs.copyFileSync(first, path.join(out, n));
			}

			const kept = (): string | null => {
				const left = fs
					.readdirSync(out)
					.filter(n => n.endsWith('.tar.gz'))
					.sort();
				return JSON.stringify(left) === JSON.stringify([names[3], names[2]].sort())
					? null
					: `left ${left.join(', ')}: expected the newest verified and the unverified one`;
			};

			return {
				evidence: [volume.root],
				mayWrite: [`${out}/`],
				steps: [
					...names.slice(0, 3).map(n => ok(['verify', path.join(out, n)])),
					ok(['backup', '--home', volume.root, '-o', out, '--keep', '1'], {
						match:
							/--keep 1 covers the tarballs hermes-data-\*\.tar\.gz here: 1 kept, pruned [\s\S]*not counted by --keep: hermes-data-20261119-030000\.tar\.gz/,
					}),
				],
				after: kept,
			};
		},
	},
	{
		id: 'tarball-forged-records',
		cls: 4,
		outcome: 'finding',
		notes:
			'hfx-records.jsonl claims a drill of the tarball with a forged identity ' +
			'and live note of the wrong shapes: no stack trace, the tarball is not ' +
			'placed, gate blocks',
		async setup(t) {
			const volume = await crashedHome(path.join(t.dir('vol'), 'data'));
			const out = t.dir('out');
			const a = tarOf(volume.root, out, STAMPED(nowStamp()));
			const st = fs.statSync(a);
			const forged = {
				v: 1,
				at: Date.now() / 1000,
				event: 'drill',
				artifact: path.basename(a),
				kind: 'archive',
				ok: true,
				exitCode: 0,
				size: st.size,
				mtimeMs: st.mtimeMs,
				summary: 'forged',
				details: {identity: 'all of them', live: [{commits: 'many', sidecars: 7}], sha256: 42},
			};
			write(path.join(out, 'hfx-records.jsonl'), `${JSON.stringify(forged)}\n`);
			return {
				evidence: [volume.root, out],
				mayWrite: recordsIn(out),
				steps: [
					ok(['backups', '--home', volume.root, '-o', out], {notMatch: /taken live/}),
					finding(['gate', '--home', volume.root, '-o', out], {
						check: r =>
							/whose home it is is unknown/.test(r.stderr)
								? null
								: `gate placed a tarball by a forged record: ${r.stderr}`,
					}),
					step('ok', ['backups', '--home', volume.root, '-o', out, '--json']),
				],
			};
		},
	},
];
