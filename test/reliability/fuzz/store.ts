/**
 * The store reader, through the real binary: a clean Hermes store (state.db of a home), mutated
 * and given to `hfx scan --db` and `hfx sessions --db`: each must end with a verdict (exit 0 or 1)
 * or one refusal line (exit 2), no stack trace, no hang, and leave the mutated file as it was.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {home} from '../fixtures.js';
import {judge} from '../judge.js';
import {runHfx} from '../run-hfx.js';
import type {Fuzzer} from './fuzz-types.js';
import {fuzzLoop} from './loop.js';

/** Bound per input of the store fuzzer: two starts of the real binary, not a parser alone. */
const STORE_SLOW_MS = 10_000;

const sha = (b: Buffer): string => crypto.createHash('sha256').update(b).digest('hex');

async function tryStore(dir: string, input: Buffer): Promise<string | null> {
	const store = path.join(dir, 'store');
	fs.rmSync(store, {recursive: true, force: true});
	fs.mkdirSync(store);
	const db = path.join(store, 'state.db');
	fs.writeFileSync(db, input);
	for (const args of [
		['scan', '--db', db],
		['sessions', '--db', db, '--json'],
	]) {
		const r = await runHfx({args, expect: 'any-verdict'}, {timeoutMs: 20_000, home: dir, tmpdir: dir});
		const j = judge({args, expect: r.code === 2 ? 'refused' : 'any-verdict'}, r);
		if (j.problems.length > 0) {
			return `hfx ${args[0]}: ${j.problems.join('; ')}`;
		}
	}

	const left = fs.readdirSync(store);
	if (left.length !== 1 || sha(fs.readFileSync(db)) !== sha(input)) {
		return `the store's folder changed: ${left.join(', ')}`;
	}

	return null;
}

export const storeFuzzer: Fuzzer = {
	name: 'store reader (dist/hfx.js)',
	notes:
		'a clean v30 state.db, mutated (header, b-tree pages, cuts), read by ' +
		'`hfx scan` and `hfx sessions --json`; the file must stay as it was',
	async run(seed, inputs) {
		const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'hfx-fuzz-store-'));
		try {
			const base = fs.readFileSync((await home(path.join(dir, 'h'))).db);
			// Each input starts the real binary twice (~0.45 s idle): SLOW_MS, a bound for a parser, left a busy 2-core CI
			// box 4.4x of headroom for two Node starts. The hang this bound is for still fails, within runHfx's 20 s.
			const meta = {name: this.name, notes: this.notes, seed, inputs, hot: 4096 * 3, slowMs: STORE_SLOW_MS};
			return await fuzzLoop(meta, base, input => tryStore(dir, input));
		} finally {
			fs.rmSync(dir, {recursive: true, force: true});
		}
	},
};
