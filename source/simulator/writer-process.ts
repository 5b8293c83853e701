/**
 * A real second process that writes a Hermes-shaped store, driven by JSON lines on stdin.
 * Tests use it to commit while hfx observes, to hold a transaction open, or to be killed with
 * SIGKILL mid-life. Each command is answered with one JSON line on stdout: {"ok":true,...} or
 * {"ok":false,"error":"..."}.
 *
 * It also applies the gateway steps of restart.ts (a resume after a restart and its look-alikes) to a
 * store it made, or to a copy of a real Hermes store (then give the store's own shape and journal mode).
 *
 *   node dist/simulator/writer-process.js --db PATH [--shape v21|v25|v30] [--journal wal|delete] [--cache-pages N]
 */
import readline from 'node:readline';
import type {SchemaShape} from './hermes-schema.js';
import {
	type CompressionRotation,
	type ResetNew,
	type ResetPromotion,
	type ResumeAfterRestart,
	type SpooledMessage,
	compressionRotation,
	replaySpool,
	resetNew,
	resetPromotion,
	resumeAfterRestart,
} from './restart.js';
import {StoreWriter, type NewMessage, type NewSession} from './store-writer.js';

/** The gateway steps of restart.ts, each one write transaction (issue #23). */
export type GatewayStepCommand =
	| {op: 'resume-after-restart'; step: ResumeAfterRestart}
	| {op: 'compression-rotation'; step: CompressionRotation}
	| {op: 'reset-new'; step: ResetNew}
	| {op: 'reset-promotion'; step: ResetPromotion}
	| {op: 'replay-spool'; step: {sessionId: string; messages: SpooledMessage[]}};

export type WriterCommand =
	| {op: 'create'; session: NewSession}
	| {op: 'conversation'; id: string; count: number; from: number; to: number}
	| {op: 'messages'; id: string; messages: NewMessage[]}
	| {op: 'end'; id: string; at: number; reason: string}
	| {op: 'routing'; key: string; id: string; at: number}
	| {op: 'exec'; sql: string}
	| {op: 'begin'}
	| {op: 'commit'}
	| {op: 'ping'}
	/** Leave without closing the connection: on disk, the same as a crash (-wal and -shm stay). */
	| {op: 'exit-without-close'}
	| {op: 'close'}
	| GatewayStepCommand;

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

/** One gateway step; the id of the row it minted, if it minted one. */
function runGatewayStep(command: GatewayStepCommand): Record<string, unknown> {
	switch (command.op) {
		case 'resume-after-restart': {
			resumeAfterRestart(writer.db, command.step);
			return {};
		}

		case 'compression-rotation': {
			return {id: compressionRotation(writer.db, command.step)};
		}

		case 'reset-new': {
			return {id: resetNew(writer.db, command.step)};
		}

		case 'reset-promotion': {
			return {id: resetPromotion(writer.db, command.step)};
		}

		case 'replay-spool': {
			replaySpool(writer.db, command.step);
			return {};
		}
	}
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

		case 'messages': {
			writer.addMessages(command.id, command.messages);
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

		case 'begin':
		case 'commit': {
			writer.exec(command.op === 'begin' ? 'BEGIN IMMEDIATE' : 'COMMIT');
			return {};
		}

		case 'ping': {
			return {pid: process.pid};
		}

		case 'exit-without-close': {
			reply({ok: true});
			return process.exit(0);
		}

		case 'close': {
			writer.close();
			reply({ok: true});
			return process.exit(0);
		}

		default: {
			return runGatewayStep(command);
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
