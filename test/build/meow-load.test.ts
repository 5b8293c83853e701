/**
 * The bin's meow runs from one bundled script with V8's code cache made at build time
 * (scripts/meow-bundle.mjs, scripts/meow-load.mjs): the cache the build makes is taken, a cache V8
 * will not take (damaged, or another Node's) only costs time, and whichever way it ran, meow
 * parses as meow as published does.
 */
import meow from 'meow';
import {beforeAll, describe, expect, it} from 'vitest';
import {meowCache, meowScript} from '../../scripts/meow-bundle.mjs';
import {loadMeow, sealed} from '../../scripts/meow-load.mjs';

type Meow = typeof meow;

const FLAGS = {help: {type: 'boolean', shortFlag: 'h'}, version: {type: 'boolean'}, json: {type: 'boolean'}, db: {type: 'string'}, only: {type: 'string', isMultiple: true}, keep: {type: 'string'}, dryRun: {type: 'boolean'}} as const;
const LINES = [['--version'], ['--db', 'x.db', '--json', '--only', 'a', '--only', 'b', 'word'], ['--dry-run', '--keep=3', '--', '--json'], ['-h', '--no-json']];

/** What meow makes of each line, as JSON (operands, flags, the flags as typed). */
function parses(run: Meow): string[] {
	return LINES.map(argv => {
		const result = run({argv, importMeta: import.meta, pkg: {}, flags: FLAGS, allowUnknownFlags: false, autoHelp: false, autoVersion: false, description: false});
		return JSON.stringify({input: result.input, flags: result.flags, unnormalized: result.unnormalizedFlags});
	});
}

describe('meow from its bundled script and code cache', () => {
	let source: string;
	let cache: string;
	beforeAll(async () => {
		source = await meowScript();
		cache = meowCache(source);
	});

	it('takes the cache the build made, and parses as meow as published', () => {
		expect(source).toContain('"[\\\\p{Lu}]"');
		expect(source).not.toContain('/[\\p{Lu}]/u');
		const loaded = loadMeow(source, cache);
		expect(loaded.cacheRejected).toBe(false);
		expect(parses(loaded.meow)).toEqual(parses(meow));
	});

	it('compiles from the code when the cache is another Node\'s or damaged (V8 is never given damaged bytes), with the same parse', () => {
		const bytes = Buffer.from(cache.slice(cache.indexOf(':') + 1), 'base64');
		// Another V8's cache: its header says another version, and V8 itself rejects it.
		const foreign = Buffer.from(bytes);
		foreign.fill(0x5a, 4, 8);
		const other = loadMeow(source, sealed(foreign));
		expect(other.cacheRejected).toBe(true);
		expect(parses(other.meow)).toEqual(parses(meow));
		// Damaged inside (V8 would take it and crash): its CRC-32 no longer matches, so V8 never sees it.
		const inside = Buffer.from(bytes);
		inside.fill(0x5a, 64, 4096);
		const damaged = loadMeow(source, `${cache.slice(0, cache.indexOf(':'))}:${inside.toString('base64')}`);
		expect(damaged.cacheRejected).toBe(true);
		expect(parses(damaged.meow)).toEqual(parses(meow));
		const none = loadMeow(source);
		expect(none.cacheRejected).toBeNull();
		expect(parses(none.meow)).toEqual(parses(meow));
	});

	it('fails the build, naming the step, when the cache cannot be made', () => {
		expect(() => meowCache('throw new Error("not meow")')).toThrow(/making meow's code cache failed \(1\): .*not meow/s);
	});
});
