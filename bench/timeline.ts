/**
 * Section `timeline`: `hfx timeline KEY` of a chat with 10,000 rows (issue #23: "a chat with
 * 10,000 rows must still render its timeline in under a second"), against `hfx routing KEY` of the
 * same chat on the same store as the baseline: the same start, open, snapshot and analysis, so the
 * ratio is what the timeline adds (its rows, one windowed read of their messages, the events, the
 * text). The store (v30, written here in a scratch folder, removed after) holds the chat as a
 * compression chain of 10,000 keyed rows, 5 messages each, with a rollback at its tip (a keyless
 * 8-hex row inside the tip's gap, two turns written after), and 2,000 rows of 500 other chats. A
 * sqlite3 process holds it open, standing in for the agent, so hfx reads it in place.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import {schemaSql} from '../dist/simulator/hermes-schema.js';
import {type BenchContext, type Section, type SectionResult, mb, measureInterleaved, median} from './harness.js';
import {startOwner} from './scan.js';

export const TIMELINE_ROWS = 10_000;
const KEY = 'agent:main:telegram:dm:5550001';
const T0 = 1_690_000_000;
/**
 * The issue's limit ("render its timeline in under a second"), judged on what the operator waits
 * for: the wall time from start to exit, median of interleaved runs, on an idle machine (the runner
 * warns when the CPUs were busy; a busy machine fails it). The CPU time (user + system) is shown
 * beside it for context, not judged: it also counts V8's helper threads (concurrent marking, the
 * background compilers), which run beside the main thread and do not delay the frame. Measured on
 * this store: CPU 1.22 s for a wall of 0.98 s. And the share over the baseline the timeline may
 * add, on wall time too.
 */
const LIMIT_MS = 1000;
const LIMIT_RATIO = 2;

function hex(n: number): string {
	return n.toString(16).padStart(8, '0');
}

function insertChat(db: Database.Database): void {
	const row = db.prepare(
		'INSERT INTO sessions (id, source, user_id, session_key, chat_id, ' +
			'chat_type, parent_session_id, started_at, ended_at, end_reason, ' +
			"message_count, last_activity_at) VALUES (?, 'telegram', 'u1', ?, ?, " +
			"'dm', ?, ?, ?, ?, ?, ?)",
	);
	const message = db.prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)');
	let parent: string | null = null;
	for (let i = 0; i < TIMELINE_ROWS; i++) {
		const start = T0 + i * 3600;
		const id = `20260601_000000_${hex(i)}`;
		const tip = i === TIMELINE_ROWS - 1;
		row.run(
			id,
			KEY,
			'5550001',
			parent,
			start,
			tip ? null : start + 3000,
			tip ? null : 'compression',
			tip ? 7 : 5,
			start + (tip ? 90 * 86_400 : 2000),
		);
		for (let m = 0; m < 5; m++) {
			message.run(id, m % 2 ? 'assistant' : 'user', `turn ${m} of row ${i}`, start + 60 + m * 400);
		}

		parent = id;
	}

	// The rollback at the tip: a keyless gateway row forked a minute after its last message; two turns a month later.
	const tip = parent!;
	const forkAt = T0 + (TIMELINE_ROWS - 1) * 3600 + 1700;
	row.run('20260601_000000_ffffffff', null, null, null, forkAt, null, null, 40, null);
	db.prepare("UPDATE sessions SET user_id = 'u1', chat_id = NULL WHERE id = '20260601_000000_ffffffff'").run();
	for (let m = 0; m < 40; m++) {
		message.run('20260601_000000_ffffffff', m % 2 ? 'assistant' : 'user', `skipped ${m}`, forkAt + 10 + m * 600);
	}

	for (let m = 0; m < 2; m++) {
		message.run(tip, m % 2 ? 'assistant' : 'user', `after the restart ${m}`, forkAt + 30 * 86_400 + m * 5);
	}
}

function insertOthers(db: Database.Database): void {
	const row = db.prepare(
		'INSERT INTO sessions (id, source, user_id, session_key, chat_id, ' +
			'chat_type, started_at, message_count, last_activity_at) VALUES (?, ' +
			"'discord', ?, ?, ?, 'dm', ?, 3, ?)",
	);
	const message = db.prepare(
		"INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', 'hello', ?)",
	);
	for (let i = 0; i < 2000; i++) {
		const start = T0 + i * 1800;
		const id = `20260602_000000_${hex(0x1000_0000 + i)}`;
		row.run(id, `d${i % 500}`, `agent:main:discord:dm:${i % 500}`, String(i % 500), start, start + 600);
		for (let m = 0; m < 3; m++) {
			message.run(id, start + m * 200);
		}
	}
}

/** The bench store, written in one transaction. */
export function writeTimelineStore(dbPath: string): void {
	const db = new Database(dbPath);
	try {
		db.pragma('journal_mode = WAL');
		db.exec(schemaSql('v30'));
		db.transaction(() => {
			insertChat(db);
			insertOthers(db);
		})();
		db.pragma('wal_checkpoint(TRUNCATE)');
	} finally {
		db.close();
	}
}

export const timelineSection: Section = {
	id: 'timeline',
	title:
		`Timeline: \`hfx timeline KEY\` of a chat ` +
		`with ${TIMELINE_ROWS.toLocaleString('en')} rows against \`hfx routing ` +
		`KEY\` of it`,
	async run(ctx: BenchContext): Promise<SectionResult> {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-bench-timeline-'));
		const dbPath = path.join(dir, 'state.db');
		writeTimelineStore(dbPath);
		const owner = await startOwner(dbPath);
		try {
			const bin = path.join(ctx.root, 'dist/hfx.js');
			const options = {okExitCodes: [0, 1], env: {...process.env, NO_COLOR: '1'}};
			const [baseline, text, json] = await measureInterleaved(ctx, [
				{label: 'hfx routing KEY', command: process.execPath, args: [bin, 'routing', KEY, '--db', dbPath], options},
				{label: 'hfx timeline KEY', command: process.execPath, args: [bin, 'timeline', KEY, '--db', dbPath], options},
				{
					label: 'hfx timeline KEY --json',
					command: process.execPath,
					args: [bin, 'timeline', KEY, '--db', dbPath, '--json'],
					options,
				},
			]);
			const ratio = text!.medianMs / baseline!.medianMs;
			const cpu = median(text!.samples.map(x => x.cpuMs ?? x.ms));
			const baseCpu = median(baseline!.samples.map(x => x.cpuMs ?? x.ms));
			return {
				rows: [
					{
						measurement:
							`\`hfx timeline KEY\` (text), ${TIMELINE_ROWS.toLocaleString('en')} ` +
							`rows: wall time against the baseline's`,
						medianMs: text!.medianMs,
						minMs: text!.minMs,
						peakRssMb: mb(text!.peakRssKb),
						ratio,
						target: `≤ ${LIMIT_RATIO}×`,
						result: ratio <= LIMIT_RATIO ? 'PASS' : 'FAIL',
					},
					{
						measurement:
							`\`hfx timeline KEY\` (text): wall time, start to exit (what the ` +
							`operator waits for): ${text!.medianMs.toFixed(0)} ms`,
						medianMs: text!.medianMs,
						minMs: text!.minMs,
						target: `< ${LIMIT_MS} ms`,
						result: text!.medianMs < LIMIT_MS ? 'PASS' : 'FAIL',
					},
					{
						measurement:
							`\`hfx timeline KEY\` (text): CPU time (user + system, V8's helper ` +
							`threads included): ${cpu.toFixed(0)} ms`,
						medianMs: cpu,
						target: 'context',
						result: 'info',
					},
					{
						measurement: '`hfx timeline KEY --json` (never folded: every row and event)',
						medianMs: json!.medianMs,
						minMs: json!.minMs,
						peakRssMb: mb(json!.peakRssKb),
						ratio: json!.medianMs / baseline!.medianMs,
						target: 'context',
						result: 'info',
					},
					{
						measurement: `\`hfx routing KEY\`: CPU time (user + system): ${baseCpu.toFixed(0)} ms`,
						medianMs: baseCpu,
						target: 'context',
						result: 'info',
					},
					{
						measurement:
							'`hfx routing KEY` (baseline: the same start, load and analysis; it lists the 10,000 candidates)',
						medianMs: baseline!.medianMs,
						minMs: baseline!.minMs,
						peakRssMb: mb(baseline!.peakRssKb),
						target: 'baseline',
						result: 'info',
					},
				],
				notes: [
					`${TIMELINE_ROWS.toLocaleString('en')} keyed rows of one chat in a ` +
						`compression chain (5 messages each) with a rollback at the tip, 2,000 ` +
						`rows of 500 other chats; held open by a sqlite3 process; ${ctx.runs} ` +
						`interleaved rounds after ${ctx.warmups} warm-up(s).`,
				],
			};
		} finally {
			await owner.stop();
			fs.rmSync(dir, {recursive: true, force: true});
		}
	},
};
