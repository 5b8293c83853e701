/**
 * `hfx diff A B` reads a store side in place (issue #26, "no read may cost a copy of the store"), through the real
 * binary: A a stopped store (its writer, a real second process, closed it cleanly), B a crashed one (a copy of A that a
 * second writer went on writing and was SIGKILLed, its last commits only in the -wal). Nothing appears in hfx's own
 * TMPDIR while it runs (sampled), every byte and name of both folders is unchanged, both sides say in-place, and the
 * diff is the one the private copies of the same bytes give.
 */
import {type ChildProcess, spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {T0} from '../../fixtures/scenarios.js';
import {hfxJson} from '../../helpers/cli.js';
import {folderHashes} from '../../helpers/folder-hashes.js';
import {hfxWatchingTmp} from '../../helpers/watched-run.js';
import {WriterProcess} from '../../helpers/writer.js';

const dirs: string[] = [];
afterAll(() => {
	for (const d of dirs) {
		fs.rmSync(d, {recursive: true, force: true});
	}
});

function tempDir(tag: string): string {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-diff-in-place-${tag}-`));
	dirs.push(d);
	return d;
}

async function exited(w: WriterProcess): Promise<void> {
	await new Promise(resolve => {
		w.child.exitCode === null && w.child.signalCode === null ? w.child.once('exit', resolve) : resolve(undefined);
	});
}

/**
 * A: the incident (a chat's row gone quiet, its messages continued in an orphan), closed cleanly (neither -wal nor
 * -shm). B: a copy of A's file that a second writer goes on writing (the orphan's next turns, a new chat) and is
 * SIGKILLed in, so those commits are only in the -wal it leaves beside its -shm.
 */
async function stoppedAndCrashed(): Promise<{a: string; b: string}> {
	const a = path.join(tempDir('stopped'), 'state.db');
	const w = new WriterProcess(a, {shape: 'v30'});
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
	await w.send({op: 'conversation', id: orphan, count: 40, from: T0 + 700, to: T0 + 4000});
	await w.send({op: 'close'}).catch(() => undefined);
	await exited(w);
	expect(fs.readdirSync(path.dirname(a))).toEqual(['state.db']);

	const b = path.join(tempDir('crashed'), 'state.db');
	fs.copyFileSync(a, b);
	const later = new WriterProcess(b, {shape: 'v30'});
	try {
		await later.started();
		await later.send({op: 'conversation', id: orphan, count: 12, from: T0 + 4100, to: T0 + 4800});
		const other = await later.create({source: 'telegram', userId: 'u2', chatId: '2', startedAt: T0 + 5000});
		await later.send({op: 'conversation', id: other, count: 8, from: T0 + 5010, to: T0 + 5400});
	} finally {
		await later.kill();
	}

	expect(fs.readdirSync(path.dirname(b)).sort()).toEqual(['state.db', 'state.db-shm', 'state.db-wal']);
	expect(fs.statSync(`${b}-wal`).size).toBeGreaterThan(0);
	return {a, b};
}

/** `hfx diff A B --json` in the background, every name seen in its own TMPDIR while it ran. */
function diffWatchingTmp(a: string, b: string, tmp: string) {
	return hfxWatchingTmp(['diff', a, b, '--json'], tmp);
}

/** A stopped store made crashed: a reader (the sqlite3 CLI) opens it, which creates -wal and -shm, and is SIGKILLed. */
async function crashBeside(db: string): Promise<void> {
	const child: ChildProcess = spawn('sqlite3', [db], {stdio: ['pipe', 'ignore', 'ignore']});
	child.stdin!.write('SELECT count(*) FROM sqlite_master;\n');
	while (!fs.existsSync(`${db}-shm`)) {
		await new Promise(resolve => setTimeout(resolve, 10));
	}

	await new Promise(resolve => setTimeout(resolve, 100));
	const gone = new Promise(resolve => child.once('exit', resolve));
	child.kill('SIGKILL');
	await gone;
}

/**
 * The same bytes in new folders, each a -wal without its -shm (which hfx reads from a private copy, as it read every
 * stopped or crashed store before): A made crashed by a killed reader, then both -shm removed.
 */
async function privateCopyTwins(a: string, b: string): Promise<{a: string; b: string}> {
	const twins = {a: path.join(tempDir('twin-a'), 'state.db'), b: path.join(tempDir('twin-b'), 'state.db')};
	fs.copyFileSync(a, twins.a);
	for (const f of fs.readdirSync(path.dirname(b))) {
		fs.copyFileSync(path.join(path.dirname(b), f), path.join(path.dirname(twins.b), f));
	}

	await crashBeside(twins.a);
	fs.rmSync(`${twins.a}-shm`);
	fs.rmSync(`${twins.b}-shm`);
	return twins;
}

/** The diff's JSON without how each side was opened, its twins' folders read as the originals'. */
function resultOf(json: unknown, renames: Array<[string, string]>): unknown {
	let text = JSON.stringify(json);
	for (const [from, to] of renames) {
		text = text.replaceAll(from, to);
	}

	const out = JSON.parse(text);
	for (const side of [out.a, out.b] as Array<{openMode?: string}>) {
		delete side.openMode;
	}

	return out;
}

describe('hfx diff of a stopped store and a crashed one', () => {
	it('reads both in place: its TMPDIR stays empty, every byte and name of both folders unchanged, the same diff as ' +
		'private copies of the same bytes give', async () => {
		const {a, b} = await stoppedAndCrashed();
		const before = {a: folderHashes(path.dirname(a)), b: folderHashes(path.dirname(b))};
		const tmp = tempDir('tmp');

		const inPlace = await diffWatchingTmp(a, b, tmp);
		expect(inPlace.stderr).toBe('');
		// Before: each side copied whole to hfx-read-… in the temp folder (a stopped store's file, a crashed one's
		// file and -wal).
		expect(inPlace.seenInTmp).toEqual([]);
		expect({a: folderHashes(path.dirname(a)), b: folderHashes(path.dirname(b))}).toEqual(before);
		expect([inPlace.json.a.openMode, inPlace.json.b.openMode]).toEqual(['in-place', 'in-place']);
		// B's -wal commits were read: its 20 messages more than A's.
		expect(inPlace.json.b.messages - inPlace.json.a.messages).toBe(20);

		const twins = await privateCopyTwins(a, b);
		const copied = hfxJson(['diff', twins.a, twins.b]);
		expect(copied.stderr).toBe('');
		expect(copied.code).toBe(inPlace.code);
		expect([copied.json.a.openMode, copied.json.b.openMode]).toEqual(['private-copy', 'private-copy']);
		const renames: Array<[string, string]> = [
			[path.dirname(twins.a), path.dirname(a)],
			[path.dirname(twins.b), path.dirname(b)],
		];
		expect(resultOf(inPlace.json, [])).toEqual(resultOf(copied.json, renames));
	}, 60_000);
});
