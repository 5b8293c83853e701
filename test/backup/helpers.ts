/**
 * Real Hermes homes for the backup tests: real SQLite stores written by the project's writer,
 * real config files, real excluded clutter; a real second process committing ~200 times a
 * second; a tiny zip writer for hostile archives (yazl refuses to write them).
 */
import {type ChildProcessWithoutNullStreams, spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import {StoreWriter} from '../../source/simulator/store-writer.js';
import {SCENARIOS, T0} from '../fixtures/scenarios.js';
import {ROOT, WriterProcess} from '../helpers/writer.js';

const made: string[] = [];

export function tempDir(tag: string): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-bk-${tag}-`));
	made.push(d);
	return d;
}

export function cleanupTemps(): void {
	for (const d of made.splice(0)) {
		try {
			fs.chmodSync(d, 0o755);
		} catch {
			// already gone
		}

		fs.rmSync(d, {recursive: true, force: true});
	}
}

export type Home = {root: string; db: string; profileDb: string; sessions: number; messages: number};

/**
 * A Hermes root: the R1 incident in state.db, a v21 profile store, config and credentials, and
 * clutter Hermes excludes (node_modules, cache, models, -wal of a db, pid and lock files).
 */
export function makeHome(tag: string, options: {socket?: boolean} = {}): Home {
	const root = tempDir(tag);
	const mk = (rel: string, content: string | Buffer, mode = 0o644) => {
		const p = path.join(root, rel);
		fs.mkdirSync(path.dirname(p), {recursive: true});
		fs.writeFileSync(p, content, {mode});
	};

	mk('config.yaml', 'model: hermes-3\nterminal:\n  backend: docker\n  container_persistent: false\n');
	mk('.env', 'OPENROUTER_API_KEY=sk-or-test-not-real\n', 0o644);
	mk('auth.json', '{"providers":{}}\n', 0o600);
	mk('SOUL.md', '# soul\n');
	mk('memories/MEMORY.md', '# memory\nremember the milk\n');
	mk('skills/greet/SKILL.md', 'say hi\n');
	mk('cron/jobs.json', '{"jobs":[]}\n');
	mk('cache/images/photo.png', Buffer.alloc(300, 7));
	mk('cache/http/junk.bin', 'junk');
	mk('node_modules/left-pad/index.js', 'module.exports = 1\n');
	mk('models/tiny.bin', 'weights');
	mk('gateway.pid', '999999\n');
	mk('state.db.quarantine.lock', '');
	mk('profiles/work/config.yaml', 'model: other\n');
	mk('profiles/work/runtimes/x', 'rt');
	mk('backups/hermes-backup-2026-01-01-000000.zip', 'not ours');
	mk('state-snapshots/20260101-000000/manifest.json', '{}');
	const db = path.join(root, 'state.db');
	const w = new StoreWriter(db, {shape: 'v30'});
	SCENARIOS[0]!.build(w);
	w.close();
	const profileDb = path.join(root, 'profiles/work/state.db');
	const p = new StoreWriter(profileDb, {shape: 'v21'});
	const id = p.createSession({source: 'cli', startedAt: T0});
	p.addConversation(id, 7, T0 + 1, T0 + 70);
	p.close();
	if (options.socket) {
		// A real unix socket in the root: must be excluded, not read.
		const server = net.createServer();
		server.listen(path.join(root, 'gateway.sock'));
		server.unref();
	}

	const c = counts(db);
	return {root, db, profileDb, sessions: c.sessions, messages: c.messages};
}

/** Row counts through a read-only connection (test side). */
export function counts(db: string): {sessions: number; messages: number} {
	const d = new Database(db, {readonly: true, fileMustExist: true});
	try {
		return {
			sessions: d.prepare('SELECT count(*) FROM sessions').pluck().get() as number,
			messages: d.prepare('SELECT count(*) FROM messages').pluck().get() as number,
		};
	} finally {
		d.close();
	}
}

/** Every row of sessions and messages, for "exactly the archive's data" comparisons. */
export function dump(db: string): string {
	const d = new Database(db, {readonly: true, fileMustExist: true});
	try {
		return JSON.stringify({
			sessions: d.prepare('SELECT * FROM sessions ORDER BY id').all(),
			messages: d.prepare('SELECT * FROM messages ORDER BY id').all(),
		});
	} finally {
		d.close();
	}
}

/** A big store quickly: one transaction of `n` messages of ~`size` characters. */
export function bigStore(db: string, n: number, size = 400): void {
	const w = new StoreWriter(db, {shape: 'v30'});
	const id = w.createSession({
		source: 'telegram',
		userId: 'u',
		sessionKey: 'agent:main:telegram:dm:42',
		chatId: '42',
		chatType: 'dm',
		startedAt: T0,
	});
	const text = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(size / 27)).slice(0, size);
	const batch = 5000;
	for (let i = 0; i < n; i += batch) {
		w.addMessages(
			id,
			Array.from({length: Math.min(batch, n - i)}, (_, k) => ({timestamp: T0 + i + k, content: `${i + k} ${text}`})),
		);
	}

	w.close();
}

/**
 * A real second process committing one message every 1000/rate ms (default ~200/s) until
 * stopped. Reports how many commits it made.
 */
export class Trickle {
	readonly child: ChildProcessWithoutNullStreams;
	private readonly lines: string[] = [];
	private waiters: Array<(line: string) => void> = [];

	constructor(db: string, rate = 200) {
		this.child = spawn(process.execPath, [path.join(ROOT, 'test/backup/fixtures/trickle.mjs'), db, String(rate)], {
			stdio: ['pipe', 'pipe', 'pipe'],
		});
		readline.createInterface({input: this.child.stdout}).on('line', line => {
			const w = this.waiters.shift();
			if (w) {
				w(line);
			} else {
				this.lines.push(line);
			}
		});
	}

	private next(): Promise<string> {
		const line = this.lines.shift();
		if (line !== undefined) {
			return Promise.resolve(line);
		}

		return new Promise(resolve => {
			this.waiters.push(resolve);
		});
	}

	async ready(): Promise<void> {
		const line = JSON.parse(await this.next()) as {ready?: boolean};
		if (!line.ready) {
			throw new Error('trickle did not start');
		}
	}

	private stopping: Promise<number> | undefined;

	/** Stops it (SIGTERM: it prints its commit count and exits without closing, like a crash). Idempotent. */
	async stop(): Promise<number> {
		if (this.stopping) {
			return this.stopping;
		}

		if (this.child.exitCode !== null || this.child.signalCode !== null) {
			return -1;
		}

		const exited = new Promise<void>(resolve => {
			this.child.once('exit', () => resolve());
		});
		const counted = new Promise<number>(resolve => {
			this.waiters.push(line => {
				const m = JSON.parse(line) as {commits?: number};
				resolve(typeof m.commits === 'number' ? m.commits : -1);
			});
		});
		this.child.kill('SIGTERM');
		this.stopping = Promise.race([counted, exited.then(() => -1)]).then(async n => {
			await exited;
			return n;
		});
		return this.stopping;
	}
}

// ---------------------------------------------------------------------------------------------
// A hostile zip: stored members, any name and any unix file type (yazl refuses such names).

export type CraftEntry = {name: string; data: Buffer; mode?: number};

export function craftZip(entries: CraftEntry[], comment = ''): Buffer {
	const locals: Buffer[] = [];
	const centrals: Buffer[] = [];
	let offset = 0;
	for (const e of entries) {
		const name = Buffer.from(e.name, 'utf8');
		const crc = zlib.crc32(e.data) >>> 0;
		const lh = Buffer.alloc(30);
		lh.writeUInt32LE(0x04_03_4b_50, 0);
		lh.writeUInt16LE(20, 4);
		lh.writeUInt16LE(0x800, 6);
		lh.writeUInt16LE(0, 8);
		lh.writeUInt16LE(0, 10);
		lh.writeUInt16LE(0x21, 12);
		lh.writeUInt32LE(crc, 14);
		lh.writeUInt32LE(e.data.length, 18);
		lh.writeUInt32LE(e.data.length, 22);
		lh.writeUInt16LE(name.length, 26);
		lh.writeUInt16LE(0, 28);
		locals.push(lh, name, e.data);
		const ch = Buffer.alloc(46);
		ch.writeUInt32LE(0x02_01_4b_50, 0);
		ch.writeUInt16LE((3 << 8) | 63, 4);
		ch.writeUInt16LE(20, 6);
		ch.writeUInt16LE(0x800, 8);
		ch.writeUInt16LE(0, 10);
		ch.writeUInt16LE(0, 12);
		ch.writeUInt16LE(0x21, 14);
		ch.writeUInt32LE(crc, 16);
		ch.writeUInt32LE(e.data.length, 20);
		ch.writeUInt32LE(e.data.length, 24);
		ch.writeUInt16LE(name.length, 28);
		ch.writeUInt32LE(((e.mode ?? 0o100644) << 16) >>> 0, 38);
		ch.writeUInt32LE(offset, 42);
		centrals.push(ch, name);
		offset += 30 + name.length + e.data.length;
	}

	const cd = Buffer.concat(centrals);
	const c = Buffer.from(comment, 'latin1');
	const eocd = Buffer.alloc(22);
	eocd.writeUInt32LE(0x06_05_4b_50, 0);
	eocd.writeUInt16LE(entries.length, 8);
	eocd.writeUInt16LE(entries.length, 10);
	eocd.writeUInt32LE(cd.length, 12);
	eocd.writeUInt32LE(offset, 16);
	eocd.writeUInt16LE(c.length, 20);
	return Buffer.concat([...locals, cd, eocd, c]);
}

/** The names in a folder, recursively (to prove "nothing written"). */
export function listing(dir: string): string[] {
	const out: string[] = [];
	const walk = (rel: string) => {
		for (const d of fs.readdirSync(path.join(dir, rel), {withFileTypes: true})) {
			const r = rel ? `${rel}/${d.name}` : d.name;
			out.push(d.isDirectory() ? `${r}/` : r);
			if (d.isDirectory()) {
				walk(r);
			}
		}
	};

	walk('');
	return out.sort();
}

/** XORs one byte in place. */
export function flip(buf: Buffer, offset: number, mask: number): void {
	buf[offset] = buf[offset]! ^ mask;
}

/**
 * A Docker volume folder `<parent>/data/` holding a Hermes root whose agent was killed after 40
 * more messages: state.db, a non-empty -wal (those messages only there) and a -shm, as a
 * `tar czf … -C <parent> data` taken while the agent ran would hold them. A second process writes.
 */
export async function killedAgentVolume(
	tag: string,
): Promise<{home: Home; parent: string; db: string; messages: number}> {
	const home = makeHome(`${tag}-home`);
	const parent = tempDir(`${tag}-parent`);
	fs.cpSync(home.root, path.join(parent, 'data'), {recursive: true});
	const db = path.join(parent, 'data', 'state.db');
	const w = new WriterProcess(db);
	try {
		await w.started();
		const id = await w.create({source: 'telegram', startedAt: T0 + 99_000});
		await w.send({op: 'conversation', id, count: 40, from: T0 + 99_001, to: T0 + 99_500});
	} finally {
		await w.kill();
	}

	if (!(fs.statSync(`${db}-wal`).size > 0)) {
		throw new Error(`${db}-wal is empty: the writer's 40 messages were checkpointed, the fixture is not what it says`);
	}

	return {home, parent, db, messages: home.messages + 40};
}

/**
 * Seed 004's Docker procedure: `tar czf ARCHIVE -C <parent> data` of a volume while its agent runs.
 * A second process (the agent) holds `<parent>/data/state.db` open in WAL mode, with a session of
 * 40 messages only in its -wal, while the real `tar` reads the folder; it is SIGKILLed after, so the
 * volume keeps that -wal and -shm too. `startedAt` makes that session's id this volume's own.
 */
export async function liveVolumeTarball(
	tag: string,
	archive: string,
	options: {startedAt?: number} = {},
): Promise<{volume: string; parent: string; sessions: number; messages: number}> {
	const home = makeHome(`${tag}-home`);
	const parent = tempDir(`${tag}-parent`);
	const volume = path.join(parent, 'data');
	fs.cpSync(home.root, volume, {recursive: true});
	const db = path.join(volume, 'state.db');
	const w = new WriterProcess(db);
	try {
		await w.started();
		const startedAt = options.startedAt ?? T0 + 99_000;
		const id = await w.create({source: 'telegram', startedAt});
		await w.send({op: 'conversation', id, count: 40, from: startedAt + 1, to: startedAt + 500});
		for (const s of ['-wal', '-shm']) {
			if (!(fs.statSync(`${db}${s}`).size > 0)) {
				throw new Error(`${db}${s} is empty while the writer runs: the fixture is not a live volume`);
			}
		}

		const r = spawnSync('tar', ['czf', archive, '-C', parent, 'data'], {encoding: 'utf8'});
		if (r.status !== 0) {
			throw new Error(`tar czf failed: ${r.stderr}`);
		}
	} finally {
		await w.kill();
	}

	return {volume, parent, sessions: home.sessions + 1, messages: home.messages + 40};
}
