/**
 * The JSON contract, in one file: every command that takes --json (source/cli/commands.ts), run
 * through the real binary on copies of the real-Hermes fixtures, and the SHAPE of each document
 * (every key and the types of its values, recursively; an array's elements merged) written to
 * snapshots/json-contract.txt. The values (times, temp paths, sizes) are not part of it, so the
 * file changes only when a --json field is added, removed, renamed or changes its type, and that
 * change shows as a diff of this one file (`npx vitest run test/commands/json-contract.test.ts -u`
 * accepts it). The shapers themselves live in source/report/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {COMMANDS} from '../../source/cli/commands.js';
import {hfx} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';

const FIXTURES = path.join(ROOT, 'test/fixtures/hermes-generations');
const SNAPSHOT = path.join(ROOT, 'snapshots/json-contract.txt');

/** Every path of a JSON value (`.key`, `[]` for any element) with the types seen there, sorted. */
function shapeLines(value: unknown): string[] {
	const seen = new Map<string, Set<string>>();
	const walk = (v: unknown, at: string): void => {
		const type = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
		const types = seen.get(at) ?? new Set<string>();
		types.add(type);
		seen.set(at, types);
		if (Array.isArray(v)) {
			for (const e of v) {
				walk(e, `${at}[]`);
			}
		} else if (type === 'object') {
			for (const [k, e] of Object.entries(v as object)) {
				walk(e, `${at}.${/^[\w-]+$/.test(k) ? k : JSON.stringify(k)}`);
			}
		}
	};

	walk(value, '');
	return [...seen]
		.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
		.map(([at, types]) => `${at === '' ? '.' : at}: ${[...types].sort().join(' | ')}`);
}

/** One run: its words (temp paths as names) and its document's shape; a run whose stdout is no JSON fails. */
function contractOf(words: string, args: string[], tmp: string): string {
	const r = hfx([...args, '--json']);
	let json: unknown;
	try {
		json = JSON.parse(r.stdout);
	} catch {
		throw new Error(`hfx ${args.join(' ')} --json printed no JSON (exit ${r.code}): ${r.stderr.slice(0, 300)}`);
	}

	const lines = shapeLines(json).map(l => l.replaceAll(tmp, 'TMP'));
	return [`## hfx ${words} --json`, ...lines, ''].join('\n');
}

describe('the JSON contract (snapshots/json-contract.txt)', () => {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-json-contract-'));
	afterAll(() => fs.rmSync(tmp, {recursive: true, force: true}));

	it('shapes nested keys, merged array elements and mixed types', () => {
		expect(shapeLines({a: [{b: 1}, {b: null, c: 'x'}], d: {}, 'e f': []})).toEqual([
			'.: object',
			'."e f": array',
			'.a: array',
			'.a[]: object',
			'.a[].b: null | number',
			'.a[].c: string',
			'.d: object',
		]);
		expect(shapeLines({a: {renamed: 1}})).not.toEqual(shapeLines({a: {name: 1}}));
	});

	it('every command with --json, on the real binary: one file of shapes', {timeout: 300_000}, async () => {
		const home = path.join(tmp, 'home');
		fs.cpSync(path.join(FIXTURES, 'root'), home, {recursive: true});
		const hermesZip = path.join(tmp, 'hermes-backup.zip');
		fs.copyFileSync(path.join(FIXTURES, 'hermes-backup.zip'), hermesZip);
		const db = path.join(home, 'state.db');
		const out = path.join(tmp, 'out');
		const runs: Array<[string, string[]]> = [
			['(no command) --db STORE', ['--db', db]],
			['scan --home HOME (three profiles)', ['scan', '--home', home]],
			['scan --db MISSING (a refusal: the {error} document)', ['scan', '--db', path.join(tmp, 'none.db')]],
			['sessions', ['sessions', '--db', db]],
			['lineage ID', ['lineage', '20260902_091908_7699bc9f', '--db', db]],
			['routing', ['routing', '--db', db]],
			['diff HERMES-ZIP STORE', ['diff', hermesZip, db]],
			['timeline CHAT', ['timeline', 'agent:main:telegram:dm:880042', '--db', db]],
			['search TEXT', ['search', 'the', '--db', db]],
			['files', ['files', '--db', db]],
			['repair (dry run)', ['repair', '--db', db]],
			['backup --dry-run', ['backup', '--dry-run', '--home', home, '-o', out]],
			['backup -o DIR', ['backup', '--home', home, '-o', out]],
			['backup --quick', ['backup', '--quick', '--home', home]],
		];
		const sections = runs.map(([words, args]) => contractOf(words, args, tmp));
		const zip = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip'))!);
		const after: Array<[string, string[]]> = [
			['backups', ['backups', '--home', home, '-o', out]],
			['verify ARCHIVE', ['verify', zip]],
			['restore --drill ARCHIVE', ['restore', '--drill', zip]],
			['restore ARCHIVE --home DIR --dry-run', ['restore', zip, '--home', path.join(tmp, 'r1'), '--dry-run']],
			['restore ARCHIVE --to DIR --yes', ['restore', zip, '--to', path.join(tmp, 'r2'), '--yes']],
			['gate', ['gate', '--home', home, '-o', out]],
			['doctor', ['doctor', '--home', home, '-o', out]],
			['repair --apply --yes', ['repair', '--apply', '--yes', '--db', db]],
			['audit show', ['audit', 'show', '--db', db]],
			['audit verify', ['audit', 'verify', '--db', db]],
			['repair --undo ENTRY --yes', ['repair', '--undo', '2', '--yes', '--db', db]],
			['demo --seconds 1 (not a terminal: the report)', ['demo', '--speed', '200', '--seconds', '1']],
		];
		sections.push(...after.map(([words, args]) => contractOf(words, args, tmp)));

		// Every command that takes --json is in the contract.
		const covered = new Set([...runs, ...after].map(([, args]) => (args[0]!.startsWith('-') ? '' : args[0]!)));
		expect(COMMANDS.filter(c => 'json' in c.flags && !covered.has(c.name)).map(c => c.name)).toEqual([]);
		await expect(sections.join('\n')).toMatchFileSnapshot(SNAPSHOT);
	});
});
