/**
 * The scan section's streaming row (issue #26: `hfx scan --json` streamed): when the first byte of the document
 * reaches the reader against when hfx exits, and the peak RSS of those runs. The first piece must be the head alone
 * (`database` and `rules`, no `summary`: sent before the analysis ran) and arrive before the exit. The note also
 * gives the time from the last byte to the exit (what the process does once its output is out).
 */
import {spawn} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {type BenchContext, type Row, mb, median, rssMethod} from './harness.js';

type StreamRun = {firstByteMs: number; lastByteMs: number; totalMs: number; headOnly: boolean; rssKb: number | null};

/** One run, stdout read as it comes: the time of its first byte, of the exit, and the peak RSS (GNU time's %M). */
async function streamRun(args: readonly string[], cwd: string): Promise<StreamRun> {
	const rssFile = path.join(os.tmpdir(), `hfx-bench-stream-${process.pid}`);
	const [file, argv] =
		rssMethod === 'gnu-time'
			? ['/usr/bin/time', ['-f', '%M', '-o', rssFile, process.execPath, ...args]]
			: [process.execPath, [...args]];
	const started = performance.now();
	const child = spawn(file, argv, {cwd, stdio: ['ignore', 'pipe', 'ignore']});
	let firstByteMs: number | null = null;
	let lastByteMs = 0;
	let first = '';
	child.stdout!.on('data', (d: Buffer) => {
		lastByteMs = performance.now() - started;
		if (firstByteMs === null) {
			firstByteMs = performance.now() - started;
			first = d.toString();
		}
	});
	const code = await new Promise<number | null>((resolve, reject) => {
		child.once('error', reject);
		child.once('close', resolve);
	});
	const totalMs = performance.now() - started;
	if (code !== 0 && code !== 1) {
		throw new Error(`hfx ${args.join(' ')} exited with ${code}`);
	}

	let rssKb: number | null = null;
	if (rssMethod === 'gnu-time') {
		rssKb = Number(fs.readFileSync(rssFile, 'utf8').trim().split('\n').at(-1)) || null;
		fs.rmSync(rssFile, {force: true});
	}

	return {
		firstByteMs: firstByteMs ?? totalMs,
		lastByteMs,
		totalMs,
		headOnly: first.includes('"rules"') && !first.includes('"summary"'),
		rssKb,
	};
}

/** `ctx.runs` runs after `ctx.warmups`: the row of the first byte against the exit. */
export async function streamRow(ctx: BenchContext, hfxArgs: readonly string[]): Promise<{row: Row; note: string}> {
	for (let i = 0; i < ctx.warmups; i++) {
		await streamRun(hfxArgs, ctx.root);
	}

	const runs: StreamRun[] = [];
	for (let i = 0; i < ctx.runs; i++) {
		runs.push(await streamRun(hfxArgs, ctx.root));
	}

	const first = median(runs.map(r => r.firstByteMs));
	const total = median(runs.map(r => r.totalMs));
	const tail = median(runs.map(r => r.totalMs - r.lastByteMs));
	const rss = runs.every(r => r.rssKb !== null) ? Math.max(...runs.map(r => r.rssKb!)) : null;
	const ok = runs.every(r => r.headOnly && r.firstByteMs < r.totalMs);
	return {
		row: {
			measurement: '`hfx scan --json` streamed: time to its first byte (the head, before the analysis)',
			medianMs: first,
			peakRssMb: mb(rss),
			ratio: first / total,
			target: 'first piece = database + rules alone, before the exit',
			result: ok ? 'PASS' : 'FAIL',
		},
		note:
			`Streaming: the first byte of \`hfx scan --json\` reached the reader after ${first.toFixed(0)} ms (median ` +
			`of ${runs.length}), its exit after ${total.toFixed(0)} ms (first byte / exit ` +
			`${(first / total).toFixed(2)}; from its last byte to its exit ${tail.toFixed(0)} ms); the first ` +
			`piece was the head alone (database, rules) in ` +
			`${runs.filter(r => r.headOnly).length} of ${runs.length} runs; peak RSS of those runs ` +
			`${mb(rss)?.toFixed(1) ?? '?'} MB (the ratio column here is first byte / exit).`,
	};
}
