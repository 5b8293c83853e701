/**
 * The real things faults start from, built once per process and copied per run (a copy keeps every
 * byte, -wal and -shm included, and no process holds it): a Hermes home (test/backup/helpers.ts
 * makeHome), the R1 incident written by a real second process then SIGKILLed (a crashed agent:
 * -wal and -shm left, no holder), a home holding that crashed store, a sealed zip archive made by
 * the real binary, and a tar.gz of a home.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {bigStore, cleanupTemps, makeHome} from '../backup/helpers.js';
import {WriterProcess} from '../helpers/writer.js';
import {T0} from '../fixtures/scenarios.js';
import {CLI} from './run-hfx.js';

const cache = new Map<string, string>();
let cacheRoot: string | undefined;

function cacheDir(tag: string): string {
	cacheRoot ??= fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-rel-cache-'));
	const d = path.join(cacheRoot, tag);
	fs.mkdirSync(d, {recursive: true});
	return d;
}

/** Removes every cached template (the end of a suite run). */
export function disposeFixtures(): void {
	if (cacheRoot) {
		fs.rmSync(cacheRoot, {recursive: true, force: true});
	}

	cacheRoot = undefined;
	cache.clear();
	cleanupTemps();
}

async function once(key: string, build: (dir: string) => Promise<void> | void): Promise<string> {
	const hit = cache.get(key);
	if (hit) {
		return hit;
	}

	const dir = cacheDir(key);
	await build(dir);
	cache.set(key, dir);
	return dir;
}

function copyInto(template: string, dest: string): string {
	fs.cpSync(template, dest, {recursive: true, verbatimSymlinks: true});
	return dest;
}

/** The incident, written by a real writer process killed with SIGKILL: state.db, -wal, -shm, no holder. */
async function writeCrashed(dir: string): Promise<void> {
	const w = new WriterProcess(path.join(dir, 'state.db'), {shape: 'v30'});
	try {
		await w.started();
		const zombie = await w.create({
			source: 'telegram',
			userId: 'u1',
			sessionKey: 'agent:main:telegram:dm:1',
			chatId: '1',
			chatType: 'dm',
			startedAt: T0,
		});
		await w.send({op: 'conversation', id: zombie, count: 30, from: T0 + 5, to: T0 + 600});
		const orphan = await w.create({source: 'telegram', startedAt: T0 + 660});
		for (let i = 0; i < 10; i++) {
			await w.send({op: 'conversation', id: orphan, count: 20, from: T0 + 700 + i * 1000, to: T0 + 1600 + i * 1000});
		}

		fs.writeFileSync(path.join(dir, '.ids.json'), JSON.stringify({zombie, orphan}));
	} finally {
		await w.kill();
	}
}

export type Store = {dir: string; db: string; ids: {zombie: string; orphan: string}};

/** A crashed agent's store (class 1) in its own folder under `dest`. */
export async function crashedStore(dest: string): Promise<Store> {
	const t = await once('crashed', writeCrashed);
	const dir = copyInto(t, dest);
	const ids = JSON.parse(fs.readFileSync(path.join(dir, '.ids.json'), 'utf8')) as Store['ids'];
	fs.rmSync(path.join(dir, '.ids.json'));
	return {dir, db: path.join(dir, 'state.db'), ids};
}

export type HomeCopy = {root: string; db: string; profileDb: string};

/** A Hermes home (config, credentials, a v30 incident store, a v21 profile store, clutter). */
export async function home(dest: string): Promise<HomeCopy> {
	const t = await once('home', dir => {
		const h = makeHome('rel-template');
		fs.cpSync(h.root, dir, {recursive: true});
	});
	const root = copyInto(t, dest);
	return {root, db: path.join(root, 'state.db'), profileDb: path.join(root, 'profiles/work/state.db')};
}

/** A home whose state.db is a crashed agent's (its -wal and -shm beside it, no holder). */
export async function crashedHome(dest: string): Promise<HomeCopy> {
	const h = await home(dest);
	const c = await once('crashed', writeCrashed);
	for (const name of ['state.db', 'state.db-wal', 'state.db-shm']) {
		fs.copyFileSync(path.join(c, name), path.join(h.root, name));
	}

	return h;
}

/** A sealed archive of a home, made by the real binary; copied to `dest/NAME`. */
export async function archive(dest: string): Promise<string> {
	const t = await once('archive', dir => {
		const h = makeHome('rel-archive');
		const r = spawnSync(process.execPath, [CLI, 'backup', '--home', h.root, '-o', dir], {
			encoding: 'utf8',
			env: {...process.env, NO_COLOR: '1'},
		});
		if (r.status !== 0) {
			throw new Error(`backup for the archive template failed (${r.status}): ${r.stderr}`);
		}

		fs.rmSync(path.join(dir, 'hfx-records.jsonl'), {force: true});
	});
	const name = fs.readdirSync(t).find(n => n.endsWith('.zip'))!;
	fs.copyFileSync(path.join(t, name), path.join(dest, name));
	return path.join(dest, name);
}

/** A tar.gz of a home's files (as `tar czf` of a volume makes it), copied to `dest/home.tar.gz`. */
export async function tarball(dest: string): Promise<string> {
	const t = await once('tarball', dir => {
		const h = makeHome('rel-tar');
		const r = spawnSync('tar', [
			'czf',
			path.join(dir, 'home.tar.gz'),
			'-C',
			h.root,
			'state.db',
			'config.yaml',
			'.env',
			'profiles',
		]);
		if (r.status !== 0) {
			throw new Error(`tar failed: ${r.stderr}`);
		}
	});
	fs.copyFileSync(path.join(t, 'home.tar.gz'), path.join(dest, 'home.tar.gz'));
	return path.join(dest, 'home.tar.gz');
}

/** A home whose state.db is a stopped ~25 MB store (50,000 messages: a kill lands mid-way). */
export async function bigHome(dest: string): Promise<HomeCopy> {
	const t = await once('big-home', dir => {
		const h = makeHome('rel-big');
		fs.rmSync(h.db);
		bigStore(h.db, 50_000);
		fs.cpSync(h.root, dir, {recursive: true});
	});
	const root = copyInto(t, dest);
	return {root, db: path.join(root, 'state.db'), profileDb: path.join(root, 'profiles/work/state.db')};
}
