/**
 * A tar as a restore's source (source/backup/restore/source-tar.ts): the Hermes root found and
 * mapped, sidecars never members, a -wal a SIGKILLed writer left folded into a private copy (what
 * gets staged), a hot -journal refused, every selected member met once in archive order, the
 * private folder gone at close. Tars written by the reliability suite's ustar writer from real files.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {openTarSource} from '../../../source/backup/restore/source-tar.js';
import type {Source} from '../../../source/backup/restore/types.js';
import {sha256} from '../../../source/ground/crypto.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {T0} from '../../fixtures/scenarios.js';
import {WriterProcess} from '../../helpers/writer.js';
import {type TarMember, craftTar} from '../../reliability/craft-tar.js';
import {cleanupTemps, counts, tempDir} from '../helpers.js';

/** state.db and state.db-wal as a writer SIGKILLed after 25 messages left them. */
let db: Buffer;
let wal: Buffer;

beforeAll(async () => {
	const dir = tempDir('st-writer');
	const w = new WriterProcess(path.join(dir, 'state.db'));
	try {
		await w.started();
		const id = await w.create({source: 'cli', startedAt: T0});
		await w.send({op: 'conversation', id, count: 25, from: T0 + 1, to: T0 + 60});
	} finally {
		await w.kill();
	}

	db = fs.readFileSync(path.join(dir, 'state.db'));
	wal = fs.readFileSync(path.join(dir, 'state.db-wal'));
});

afterAll(cleanupTemps);

const b = (text: string) => Buffer.from(text);

function tar(tag: string, members: TarMember[], gz = true): {file: string; tmpDir: string} {
	const dir = tempDir(tag);
	const file = craftTar(path.join(dir, 'a.tar.gz'), members);
	if (!gz) {
		fs.writeFileSync(path.join(dir, 'a.tar'), zlib.gunzipSync(fs.readFileSync(file)));
		return {file: path.join(dir, 'a.tar'), tmpDir: tempDir(`${tag}-tmp`)};
	}

	return {file, tmpDir: tempDir(`${tag}-tmp`)};
}

async function read(source: Source): Promise<Record<string, Buffer>> {
	const out: Record<string, Buffer> = {};
	await source.each(source.members, async (m, data) => {
		const parts: Buffer[] = [];
		for await (const c of data) {
			parts.push(c);
		}

		out[m.path] = Buffer.concat(parts);
	});
	return out;
}

async function refusal(promise: Promise<unknown>): Promise<FailClosed> {
	const e = await promise.then(
		() => null,
		(error: unknown) => error,
	);
	expect(e).toBeInstanceOf(FailClosed);
	return e as FailClosed;
}

describe('openTarSource: a volume tarred while its agent ran', () => {
	it("folds the -wal's commits into a private copy of state.db, which is what the source hands over", async () => {
		const {file, tmpDir} = tar('st-live', [
			{name: 'data/state.db', data: db},
			{name: 'data/state.db-wal', data: wal},
			{name: 'data/state.db-shm', data: Buffer.alloc(32_768)},
			{name: 'data/config.yaml', data: b('cfg')},
		]);
		const source = await openTarSource(file, true, {tmpDir});
		try {
			expect(source.members.map(m => [m.path, m.archivePath, m.kind])).toEqual([
				['state.db', 'data/state.db', 'db'],
				['config.yaml', 'data/config.yaml', 'file'],
			]);
			const [folded] = source.layout.folded;
			expect(source.layout.sidecars).toEqual(['data/state.db-wal', 'data/state.db-shm']);
			expect(folded).toMatchObject({db: 'state.db', wal: 'data/state.db-wal', walBytes: wal.length});
			expect(folded!.frames).toBeGreaterThan(0);
			const bytes = await read(source);
			const m = source.members[0]!;
			expect([bytes['state.db']!.length, sha256().update(bytes['state.db']!).digest('hex')]).toEqual([
				m.size,
				m.sha256,
			]);
			expect(bytes['config.yaml']!.toString()).toBe('cfg');
			const copy = path.join(tempDir('st-live-copy'), 'state.db');
			fs.writeFileSync(copy, bytes['state.db']!);
			expect(counts(copy)).toEqual({sessions: 1, messages: 25});
			expect(fs.readdirSync(tmpDir)).toHaveLength(1);
		} finally {
			source.close();
		}

		expect(fs.readdirSync(tmpDir)).toEqual([]);
	});

	it('an empty -wal or -journal is only a sidecar: nothing to fold, the database as archived', async () => {
		const {file, tmpDir} = tar('st-empty', [
			{name: 'home/state.db', data: b('db')},
			{name: 'home/state.db-wal', data: Buffer.alloc(0)},
			{name: 'home/state.db-journal', data: Buffer.alloc(0)},
		]);
		const source = await openTarSource(file, true, {tmpDir});
		try {
			expect(source.layout).toMatchObject({
				root: 'home',
				sidecars: ['home/state.db-wal', 'home/state.db-journal'],
				folded: [],
			});
			expect(source.members.map(m => [m.path, m.size, m.sha256])).toEqual([['state.db', 2, null]]);
			expect((await read(source))['state.db']!.toString()).toBe('db');
		} finally {
			source.close();
		}
	});
});

describe('openTarSource: what it maps and what it leaves out', () => {
	it('a plain tar: members under the root, the rest outside, links and folders never members', async () => {
		const {file, tmpDir} = tar(
			'st-plain',
			[
				{name: 'vol/', type: 'dir'},
				{name: 'vol/state.db', data: b('db')},
				{name: 'vol/memories/MEMORY.md', data: b('m')},
				{name: 'vol/link', type: 'symlink', link: '/etc/shadow'},
				{name: 'README', data: b('r')},
			],
			false,
		);
		const source = await openTarSource(file, false, {tmpDir});
		try {
			expect(source.members.map(m => [m.path, m.mode, m.sha256, m.crc32])).toEqual([
				['state.db', 0o644, null, null],
				['memories/MEMORY.md', 0o644, null, null],
			]);
			expect(source.layout.outside).toEqual(['README']);
			expect(Object.keys(await read(source))).toEqual(['state.db', 'memories/MEMORY.md']);
		} finally {
			source.close();
		}
	});

	it("a hot rollback journal is refused: rolling it back is the operator's call", async () => {
		const {file, tmpDir} = tar('st-journal', [
			{name: 'state.db', data: b('db')},
			{name: 'state.db-journal', data: b('hot')},
		]);
		const e = await refusal(openTarSource(file, true, {tmpDir}));
		expect([e.kind, e.file]).toEqual(['unsafe-member', file]);
		expect(e.reason).toMatch(/^state\.db-journal is a hot rollback journal beside its database/);
	});

	it('no Hermes root is refused; a -wal that cannot be folded is refused and its private folder removed', async () => {
		const none = tar('st-none', [{name: 'etc/hosts', data: b('h')}]);
		expect((await refusal(openTarSource(none.file, true, {tmpDir: none.tmpDir}))).kind).toBe('no-hermes-root');
		const bad = tar('st-bad', [
			{name: 'state.db', data: Buffer.alloc(4096, 0x41)},
			{name: 'state.db-wal', data: Buffer.alloc(10)},
		]);
		expect((await refusal(openTarSource(bad.file, true, {tmpDir: bad.tmpDir}))).kind).toBe('wal-not-folded');
		expect(fs.readdirSync(bad.tmpDir)).toEqual([]);
	});
});

describe('openTarSource: each', () => {
	it('a member met twice is handed over once; a member gone since the listing is refused', async () => {
		const {file, tmpDir} = tar('st-each', [
			{name: 'state.db', data: b('first')},
			{name: 'config.yaml', data: b('cfg')},
			{name: 'state.db', data: b('again')},
		]);
		const source = await openTarSource(file, true, {tmpDir});
		try {
			const seen: string[] = [];
			await source.each(source.members, async (m, data) => {
				let text = '';
				for await (const c of data) {
					text += c.toString();
				}

				seen.push(`${m.path}=${text}`);
			});
			expect(seen).toEqual(['state.db=first', 'config.yaml=cfg']);
			craftTar(file, [{name: 'state.db', data: b('first')}]);
			const e = await refusal(source.each(source.members, async () => {}));
			expect(e.toJSON()).toEqual({
				file,
				kind: 'changed-during-restore',
				reason: 'the member config.yaml is no longer in the archive (it changed since it was verified?)',
				next: 'verify the archive again (hfx verify) and retry',
			});
		} finally {
			source.close();
		}
	});
});
