/**
 * Drives source/simulator/writer-process.ts (compiled) as a real second process.
 */
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import {afterAll, beforeAll} from 'vitest';
import type {WriterCommand} from '../../source/simulator/writer-process.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export class WriterProcess {
	readonly child: ChildProcessWithoutNullStreams;
	private readonly pending: Array<(line: Record<string, unknown>) => void> = [];
	private readonly ready: Promise<Record<string, unknown>>;

	constructor(
		dbPath: string,
		options: {shape?: 'v21' | 'v25' | 'v30'; journal?: 'wal' | 'delete'; cachePages?: number} = {},
	) {
		const args = [
			path.join(ROOT, 'dist/simulator/writer-process.js'),
			'--db',
			dbPath,
			'--shape',
			options.shape ?? 'v30',
			'--journal',
			options.journal ?? 'wal',
		];
		if (options.cachePages) {
			args.push('--cache-pages', String(options.cachePages));
		}

		this.child = spawn(process.execPath, args, {stdio: ['pipe', 'pipe', 'pipe']});
		let stderr = '';
		this.child.stderr.on('data', (d: Buffer) => {
			stderr += d.toString();
		});
		const lines = readline.createInterface({input: this.child.stdout});
		lines.on('line', line => {
			const next = this.pending.shift();
			next?.(JSON.parse(line) as Record<string, unknown>);
		});
		this.child.on('exit', code => {
			for (const p of this.pending.splice(0)) {
				p({ok: false, error: `writer exited with ${code}: ${stderr}`});
			}
		});
		this.ready = new Promise(resolve => {
			this.pending.push(resolve);
		});
	}

	get pid(): number {
		return this.child.pid!;
	}

	async started(): Promise<void> {
		const r = await this.ready;
		if (!r.ok) {
			throw new Error(String(r.error));
		}
	}

	async send(command: WriterCommand): Promise<Record<string, unknown>> {
		await this.ready;
		const reply = new Promise<Record<string, unknown>>(resolve => {
			this.pending.push(resolve);
		});
		this.child.stdin.write(`${JSON.stringify(command)}\n`);
		const r = await reply;
		if (!r.ok) {
			throw new Error(`writer: ${String(r.error)}`);
		}

		return r;
	}

	async create(session: Extract<WriterCommand, {op: 'create'}>['session']): Promise<string> {
		return (await this.send({op: 'create', session})).id as string;
	}

	/** SIGKILL and wait until the process is gone. */
	async kill(): Promise<void> {
		if (this.child.exitCode !== null || this.child.signalCode !== null) {
			return;
		}

		const gone = new Promise(resolve => {
			this.child.once('exit', resolve);
		});
		this.child.kill('SIGKILL');
		await gone;
	}
}

/**
 * A store in a temp folder of its own, written by a second process, for one test file: made in
 * beforeAll, the writer killed and the folder removed in afterAll. Read its fields inside tests.
 */
export function writtenStore(tag: string): {readonly dir: string; readonly db: string; readonly writer: WriterProcess} {
	const store = {dir: '', db: '', writer: undefined as unknown as WriterProcess};
	beforeAll(async () => {
		store.dir = fs.mkdtempSync(path.join(os.tmpdir(), `hfx-${tag}-`));
		store.db = path.join(store.dir, 'state.db');
		store.writer = new WriterProcess(store.db);
		await store.writer.started();
	});
	afterAll(async () => {
		await store.writer?.kill();
		fs.rmSync(store.dir, {recursive: true, force: true});
	});
	return store;
}
