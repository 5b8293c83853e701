/**
 * verify on plain `tar czf` archives, as taken of a Hermes home or of a Docker volume's data
 * folder before a rebuild: gzip integrity, tar integrity, and the database checks on a temp
 * extraction (with the -wal of a store taken while its writer was alive).
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {afterAll, describe, expect, it} from 'vitest';
import {verifyTar} from '../../../source/backup/verify/tar.js';
import {verifyArtifact} from '../../../source/backup/verify/verify.js';
import {cleanupTemps, flip, killedAgentVolume, makeHome, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

/** Whether zlib itself decodes `gz` to exactly `content` (a flip in deflate's slack). */
function sameContent(gz: Buffer, content: Buffer): boolean {
	try {
		return zlib.gunzipSync(gz).equals(content);
	} catch {
		return false;
	}
}

function tarCzf(parent: string, name: string, out: string): void {
	const r = spawnSync('tar', ['czf', out, '-C', parent, name], {encoding: 'utf8'});
	expect(r.status, r.stderr).toBe(0);
}

describe('verify tar.gz', () => {
	it(
		'checks every database with its -wal replayed and calls the tar of a ' +
			'live volume sound: its -wal and -shm are notes (the commits a restore ' +
			'folds, never restored), not damage',
		async () => {
			const {parent, messages} = await killedAgentVolume('tgz');
			const out = path.join(tempDir('tgz-out'), 'volume.tar.gz');
			tarCzf(parent, 'data', out);
			const r = await verifyArtifact(out, {inlineChecks: true});
			expect(r.problems).toEqual([]);
			expect(r.kind).toBe('tar.gz');
			expect(r.exitCode).toBe(0);
			const main = r.databases.find(d => d.path === 'data/state.db')!;
			expect(main.ok).toBe(true);
			expect(main.counts.messages).toBe(messages);
			expect(main.walBytes).toBeGreaterThan(0);
			expect(r.databases.map(d => d.path).sort()).toEqual(['data/profiles/work/state.db', 'data/state.db']);
			expect(r.live).toEqual([
				expect.objectContaining({
					database: 'data/state.db',
					wal: 'data/state.db-wal',
					sidecars: ['data/state.db-wal', 'data/state.db-shm'],
				}),
			]);
			expect(r.live![0]!.commits).toBeGreaterThan(0);
			expect(
				r.notes.some(n =>
					/its -wal holds \d+ commits? \(\d+ frames\) that a restore folds into data\/state\.db/.test(n),
				),
			).toBe(true);
		},
	);

	it(
		'a -wal beside no database it belongs to stays a finding (exit 1): only ' +
			'the sidecars of a checked database are notes',
		async () => {
			const {parent} = await killedAgentVolume('tgz-stray');
			fs.renameSync(path.join(parent, 'data', 'state.db-wal'), path.join(parent, 'data', 'gone.db-wal'));
			const out = path.join(tempDir('tgz-stray-out'), 'volume.tar.gz');
			tarCzf(parent, 'data', out);
			const r = await verifyArtifact(out, {inlineChecks: true});
			expect(r.exitCode).toBe(1);
			expect(r.problems.map(p => p.where.replace(/#\d+/, '#N'))).toEqual(['member #N "data/gone.db-wal"']);
			// The -shm of the checked state.db is still a note.
			expect(r.live).toEqual([
				expect.objectContaining({database: 'data/state.db', wal: null, sidecars: ['data/state.db-shm']}),
			]);
		},
	);

	it(
		'catches damage in the compressed stream and its trailer (exit 1 or 2, never 0) wherever it changes what ' +
			'the archive holds, and a cut-off archive',
		async () => {
			const {parent} = await killedAgentVolume('tgz-flip');
			const dir = tempDir('tgz-flip-out');
			const out = path.join(dir, 'volume.tar.gz');
			tarCzf(parent, 'data', out);
			const original = fs.readFileSync(out);
			// The gzip header's mtime/xfl/os bytes (4-9) carry no checksum in gzip: flips there are not data damage.
			const offsets = new Set<number>([0, 1, 2, 3]);
			for (let o = 10; o < original.length; o += Math.max(1, Math.floor(original.length / 160))) {
				offsets.add(o);
			}

			for (let o = original.length - 8; o < original.length; o++) {
				offsets.add(o);
			}

			const flipped = path.join(dir, 'flipped.tar.gz');
			const content = zlib.gunzipSync(original);
			const missed: number[] = [];
			let slack = 0;
			for (const o of offsets) {
				const copy = Buffer.from(original);
				flip(copy, o, 0xff);
				if (sameContent(copy, content)) {
					// Deflate has slack (the code lengths of symbols a block never uses): a flip there decodes to the
					// very same bytes with the same CRC-32, so it is not damage, and no reader can tell it apart.
					slack++;
					continue;
				}

				fs.writeFileSync(flipped, copy);
				const r = await verifyArtifact(flipped, {inlineChecks: true});
				if (r.exitCode === 0) {
					missed.push(o);
				}
			}

			expect(missed).toEqual([]);
			// Slack is rare (5 to 8 bytes in 52,000 measured): the sample still flips ~170 bytes of real content.
			expect(slack).toBeLessThan(offsets.size / 20);
			fs.writeFileSync(flipped, original.subarray(0, Math.floor(original.length / 2)));
			const cut = await verifyArtifact(flipped, {inlineChecks: true});
			expect(cut.exitCode).toBe(1);
			expect(cut.problems[0]!.what).toMatch(/gzip|tar/);
		},
	);

	it('catches a damaged tar header in a plain tar', async () => {
		const home = makeHome('tar-plain');
		const out = path.join(tempDir('tar-plain-out'), 'home.tar');
		// Without the store's -wal/-shm (sidecars are a finding of their own: see the first test).
		const r0 = spawnSync('tar', [
			'cf',
			out,
			'--exclude=*.db-wal',
			'--exclude=*.db-shm',
			'-C',
			path.dirname(home.root),
			path.basename(home.root),
		]);
		expect(r0.status).toBe(0);
		expect((await verifyArtifact(out, {inlineChecks: true})).exitCode).toBe(0);
		const bytes = fs.readFileSync(out);
		flip(bytes, 512 * 0 + 10, 0x41);
		fs.writeFileSync(out, bytes);
		const r = await verifyArtifact(out, {inlineChecks: true});
		expect(r.exitCode).toBe(1);
		expect(r.problems[0]!.what).toMatch(/header checksum mismatch/);
	});

	it(
		'catches a plain tar cut exactly after a member (its end-of-archive ' +
			'blocks gone): the parser reads it as complete, hfx does not',
		async () => {
			const home = makeHome('tar-cut-boundary');
			const out = path.join(tempDir('tar-cut-boundary-out'), 'home.tar');
			expect(
				spawnSync('tar', [
					'cf',
					out,
					'--exclude=*.db-wal',
					'--exclude=*.db-shm',
					'-C',
					path.dirname(home.root),
					path.basename(home.root),
				]).status,
			).toBe(0);
			const bytes = fs.readFileSync(out);
			let last = bytes.length - 1;
			while (last > 0 && bytes[last] === 0) {
				last--;
			}

			fs.writeFileSync(out, bytes.subarray(0, Math.ceil((last + 1) / 512) * 512));
			const r = await verifyArtifact(out, {inlineChecks: true});
			expect(r.exitCode).toBe(1);
			expect(r.problems.map(p => p.what)).toEqual(['tar: no end-of-archive blocks (cut off?)']);
		},
	);

	it('flags a 0-byte state.db beside a non-empty -wal (SQLite would delete that WAL)', async () => {
		const {parent} = await killedAgentVolume('tgz-zero');
		fs.truncateSync(path.join(parent, 'data', 'state.db'), 0);
		const out = path.join(tempDir('tgz-zero-out'), 'v.tar.gz');
		tarCzf(parent, 'data', out);
		const r = await verifyArtifact(out, {inlineChecks: true});
		expect(r.exitCode).toBe(1);
		expect(r.problems.some(p => /0 bytes beside a non-empty -wal/.test(p.what))).toBe(true);
	});
});

describe('tar.ts, called directly: a plain tar of a volume, whole and cut off', () => {
	it('reads an uncompressed tar as "tar", checks each database, and calls a cut-off copy damaged', async () => {
		const {parent, messages} = await killedAgentVolume('plain-tar');
		const dir = tempDir('plain-tar-out');
		const out = path.join(dir, 'volume.tar');
		const r = spawnSync('tar', ['cf', out, '-C', parent, 'data'], {encoding: 'utf8'});
		expect(r.status, r.stderr).toBe(0);
		const whole = await verifyTar(out, {inlineChecks: true, tmpDir: dir});
		expect(whole.kind).toBe('tar');
		expect(whole.exitCode).toBe(0);
		expect(whole.problems).toEqual([]);
		expect(whole.databases.find(d => d.path === 'data/state.db')!.counts.messages).toBe(messages);
		// Its own extraction is gone: only the tar is left in the folder it was given.
		expect(fs.readdirSync(dir)).toEqual(['volume.tar']);
		const cut = path.join(dir, 'cut.tar');
		const bytes = fs.readFileSync(out);
		fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
		const damaged = await verifyTar(cut, {inlineChecks: true, tmpDir: dir});
		expect(damaged.exitCode).not.toBe(0);
		expect(damaged.status).not.toBe('sound');
		expect(damaged.problems.length).toBeGreaterThan(0);
	});
});
