/**
 * A real second process that writes a Hermes-shaped store, driven by JSON lines on stdin.
 * Tests use it to commit while hfx observes, to hold a transaction open, or to be killed with
 * SIGKILL mid-life. Each command is answered with one JSON line on stdout: {"ok":true,...} or
 * {"ok":false,"error":"..."}.
 *
 *   node dist/simulator/writer-process.js --db PATH [--shape v21|v30] [--journal wal|delete] [--cache-pages N]
 */
import readline from 'node:readline';
import type {SchemaShape} from './hermes-schema.js';
import {StoreWriter, type NewSession} from './store-writer.js';

export type WriterCommand =
	| {op: 'create'; session: NewSession}
	| {op: 'conversation'; id: string; count: number; from: number; to: number}
	| {op: 'end'; id: string; at: number; reason: string}
	| {op: 'routing'; key: string; id: string; at: number}
	| {op: 'exec'; sql: string}
	| {op: 'begin'}
	| {op: 'commit'}
	| {op: 'ping'}
	/** Leave without closing the connection: on disk, the same as a crash (-wal and -shm stay). */
	| {op: 'exit-without-close'}
	| {op: 'close'};

function arg(name: string): string | undefined {
	const i = process.argv.indexOf(name);
	return i === -1 ? undefined : process.argv[i + 1];
}

const db = arg('--db');
if (!db) {
	process.stderr.write('writer-process: --db PATH is required\n');
	process.exit(2);
}

const cachePages = arg('--cache-pages');
const writer = new StoreWriter(db, {
	shape: (arg('--shape') ?? 'v30') as SchemaShape,
	journalMode: (arg('--journal') ?? 'wal') as 'wal' | 'delete',
	cacheSizePages: cachePages ? Number(cachePages) : undefined,
	seed: Number(arg('--seed') ?? 1),
});

function reply(value: Record<string, unknown>): void {
	process.stdout.write(`${JSON.stringify(value)}\n`);
}

function run(command: WriterCommand): Record<string, unknown> {
	switch (command.op) {
		case 'create': {
			return {id: writer.createSession(command.session)};
		}

		case 'conversation': {
			writer.addConversation(command.id, command.count, command.from, command.to);
			return {};
		}

		case 'end': {
			writer.endSession(command.id, command.at, command.reason);
			return {};
		}

		case 'routing': {
			writer.setRouting(command.key, command.id, command.at);
			return {};
		}

		case 'exec': {
			writer.exec(command.sql);
			return {};
		}

		case 'begin': {
			writer.exec('BEGIN IMMEDIATE');
			return {};
		}

		case 'commit': {
			writer.exec('COMMIT');
			return {};
		}

		case 'ping': {
			return {pid: process.pid};
		}

		case 'exit-without-close': {
			reply({ok: true});
			process.exit(0);
		}

		case 'close': {
			writer.close();
			reply({ok: true});
			process.exit(0);
		}
	}
}

const lines = readline.createInterface({input: process.stdin});
lines.on('line', line => {
	if (!line.trim()) {
		return;
	}

	try {
		reply({ok: true, ...run(JSON.parse(line) as WriterCommand)});
	} catch (error) {
		reply({ok: false, error: error instanceof Error ? error.message : String(error)});
	}
});
reply({ok: true, ready: true, pid: process.pid});
