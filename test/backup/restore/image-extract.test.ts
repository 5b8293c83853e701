/**
 * One store out of an artifact for `hfx diff` (source/backup/restore/image-extract.ts): a real
 * backup of a real home and a Hermes-style tar.gz, verified as a restore verifies them, the store
 * (and its sessions.json mirror) written into a new private temp folder; every artifact it cannot
 * trust refused in one line, nothing written.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {createBackup} from '../../../source/backup/create/backup.js';
import {type ExtractedImage, extractStoreImage} from '../../../source/backup/restore/image-extract.js';
import type {Manifest} from '../../../source/backup/manifest.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {OWN_TEMP} from '../../../source/ground/temps.js';
import {craftTar} from '../../reliability/craft-tar.js';
import {type Home, cleanupTemps, counts, craftZip, makeHome, tempDir} from '../helpers.js';
import {tinyDb} from '../hostile-archives.js';

let home: Home;
let archive: string;
let createdAtEpoch: number;
let manifest: Manifest;

beforeAll(async () => {
	home = makeHome('img');
	const backup = await createBackup({root: home.root, output: tempDir('img-out')});
	archive = backup.archive!;
	manifest = backup.manifest!;
	createdAtEpoch = manifest.createdAtEpoch;
});

afterAll(cleanupTemps);

async function refusal(promise: Promise<ExtractedImage>): Promise<FailClosed> {
	const e = await promise.then(
		() => null,
		(error: unknown) => error,
	);
	expect(e).toBeInstanceOf(FailClosed);
	return e as FailClosed;
}

describe('extractStoreImage: an hfx backup', () => {
	it('writes its state.db into a new private folder, with whose home it is and when it was taken', async () => {
		const tmpDir = tempDir('img-tmp');
		const image = await extractStoreImage(archive, {tmpDir});
		expect(path.dirname(path.dirname(image.db))).toBe(tmpDir);
		expect(OWN_TEMP.exec(path.basename(path.dirname(image.db)))?.[1]).toBe('diff');
		expect(fs.statSync(path.dirname(image.db)).mode & 0o777).toBe(0o700);
		expect(image).toEqual({
			db: image.db,
			kind: 'zip',
			home: fs.realpathSync(home.root),
			takenAt: createdAtEpoch,
			member: 'state.db',
		});
		expect(counts(image.db)).toEqual({sessions: home.sessions, messages: home.messages});
	});

	it("a profile's store by --profile; a profile it does not hold is refused", async () => {
		const image = await extractStoreImage(archive, {profile: 'work', tmpDir: tempDir('img-prof')});
		expect(image.member).toBe('profiles/work/state.db');
		expect(counts(image.db)).toEqual(counts(home.profileDb));
		const e = await refusal(extractStoreImage(archive, {profile: 'nope', tmpDir: tempDir('img-nope')}));
		expect(e.toJSON()).toEqual({
			file: archive,
			kind: 'no-profile',
			reason: 'the archive holds no profiles/nope/state.db',
			next: 'list what it holds with hfx verify, and pass a profile it has',
		});
	});

	it("the caller's manifest when it verified the archive a moment ago (a dry run): no second verify", async () => {
		const image = await extractStoreImage(archive, {
			tmpDir: tempDir('img-verified'),
			verifiedManifest: {...manifest, createdAtEpoch: 42},
		});
		expect([image.takenAt, image.member]).toEqual([42, 'state.db']);
		expect(counts(image.db).messages).toBe(home.messages);
	});

	it('a damaged copy is refused as restore refuses it, nothing written', async () => {
		const dir = tempDir('img-damaged');
		const damaged = path.join(dir, 'damaged.zip');
		const bytes = fs.readFileSync(archive);
		bytes[40] = bytes[40]! ^ 0xff;
		fs.writeFileSync(damaged, bytes);
		const e = await refusal(extractStoreImage(damaged, {tmpDir: dir}));
		expect(e.kind).toBe('archive-damaged');
		expect(e.reason).toMatch(/^the archive is damaged \(/);
		expect(fs.readdirSync(dir)).toEqual(['damaged.zip']);
	});
});

describe('extractStoreImage: a Hermes tar.gz', () => {
	it('takes the root state.db and its sessions.json mirror; no manifest, so no home and no time', async () => {
		const dir = tempDir('img-tar');
		const file = craftTar(path.join(dir, 'v.tar.gz'), [
			{name: 'data/state.db', data: tinyDb(dir, 4)},
			{name: 'data/sessions/sessions.json', data: Buffer.from('{"s1":{}}')},
			{name: 'data/config.yaml', data: Buffer.from('a: 1\n')},
		]);
		const image = await extractStoreImage(file, {tmpDir: dir});
		expect(image).toMatchObject({kind: 'tar.gz', home: null, takenAt: null, member: 'data/state.db'});
		expect(counts(image.db)).toEqual({sessions: 1, messages: 4});
		expect(fs.readFileSync(path.join(path.dirname(image.db), 'sessions', 'sessions.json'), 'utf8')).toBe('{"s1":{}}');
	});
});

describe('extractStoreImage: what it refuses', () => {
	it('a file that is no artifact, and a path that is not there', async () => {
		const dir = tempDir('img-not');
		fs.writeFileSync(path.join(dir, 'notes.txt'), 'hello');
		const e = await refusal(extractStoreImage(path.join(dir, 'notes.txt'), {tmpDir: dir}));
		expect([e.kind, e.reason]).toEqual([
			'unsupported',
			'neither an SQLite database nor a zip or tar archive nor a snapshot folder (unrecognised first bytes)',
		]);
		expect(e.next).toMatch(/^pass a state\.db, a Hermes home, an archive/);
		const absent = await refusal(extractStoreImage(path.join(dir, 'absent'), {tmpDir: dir}));
		expect([absent.kind, absent.reason]).toEqual(['unsupported', 'no such file or folder']);
		expect(fs.readdirSync(dir)).toEqual(['notes.txt']);
	});

	it('a zip with a member the policy refuses, before any verify', async () => {
		const dir = tempDir('img-unsafe');
		const file = path.join(dir, 'u.zip');
		fs.writeFileSync(
			file,
			craftZip([
				{name: 'state.db', data: tinyDb(dir, 1)},
				{name: '../../etc/cron.d/x', data: Buffer.from('x')},
			]),
		);
		const e = await refusal(extractStoreImage(file, {tmpDir: dir}));
		expect(e.kind).toBe('unsafe-member');
		expect(e.reason).toMatch(/^member "\.\.\/\.\.\/etc\/cron\.d\/x" is refused: /);
		expect(fs.readdirSync(dir)).toEqual(['u.zip']);
	});
});
