import {describe, expect, it} from 'vitest';
import {FLAGS, UsageError, parseArgs} from '../source/cli-args.js';
import {hfx} from './helpers/cli.js';

const parse = (...argv: string[]) => parseArgs(argv, FLAGS);
const usage = (...argv: string[]): string => {
	try {
		parse(...argv);
	} catch (error) {
		expect(error).toBeInstanceOf(UsageError);
		return (error as Error).message;
	}

	throw new Error(`parsed: ${argv.join(' ')}`);
};

describe('parseArgs', () => {
	it('reads kebab-case flags as camelCase, with the value after a space or an =', () => {
		const {flags, input} = parse('scan', '--db', '/a/state.db', '--max-gap-seconds=60', '--max-age', '2h');
		expect(input).toEqual(['scan']);
		expect(flags.db).toBe('/a/state.db');
		expect(flags.maxGapSeconds).toBe('60');
		expect(flags.maxAge).toBe('2h');
		expect(flags.home).toBeUndefined();
	});

	it('fills defaults for switches and numbers, and leaves absent strings undefined', () => {
		const {flags} = parse();
		expect(flags).toMatchObject({json: false, color: true, limit: 50, all: false, apply: false, dryRun: false});
		expect(flags.only).toBeUndefined();
		expect(flags.keep).toBeUndefined();
	});

	it('switches on with --name, off with --no-name or --name=false', () => {
		expect(parse('--json').flags.json).toBe(true);
		expect(parse('--no-color').flags.color).toBe(false);
		expect(parse('--color=false').flags.color).toBe(false);
		expect(parse('--dry-run').flags.dryRun).toBe(true);
		expect(usage('--json=yes')).toBe('--json is a switch (true or false), not "yes"');
		// Only a switch has a negation.
		expect(usage('--no-db')).toBe('unknown flag --no-db');
	});

	it('takes numbers for number flags, and refuses anything else', () => {
		expect(parse('sessions', '--limit', '7').flags.limit).toBe(7);
		expect(parse('--limit=-1').flags.limit).toBe(-1);
		expect(usage('--limit', 'abc')).toBe('--limit needs a number, not "abc"');
		expect(usage('--limit=')).toBe('--limit needs a number, not ""');
	});

	it('refuses unknown flags, repeated flags and a flag without its value', () => {
		expect(usage('--bogus')).toBe('unknown flag --bogus');
		expect(usage('-x')).toBe('unknown flag -x');
		expect(usage('-xyz')).toBe('unknown flag -xyz');
		expect(usage('--db', '/a', '--db', '/b')).toBe('--db is given twice');
		expect(usage('--max-gap-seconds', '5', '--maxGapSeconds', '7')).toBe('--max-gap-seconds is given twice');
		expect(usage('scan', '--db')).toBe('--db needs a value');
		expect(usage('--db', '--json')).toBe('--db needs a value');
	});

	it('collects a repeatable flag in order', () => {
		expect(parse('repair', '--only', 'a', '--only=b').flags.only).toEqual(['a', 'b']);
	});

	it('reads a bare --keep as empty and --keep N as N (demo and backup share it)', () => {
		expect(parse('demo', '--keep').flags.keep).toBe('');
		expect(parse('demo', '--keep', '--speed', '2').flags).toMatchObject({keep: '', speed: '2'});
		expect(parse('backup', '--keep', '3').flags.keep).toBe('3');
		expect(parse('backup', '--keep=abc').flags.keep).toBe('abc');
		const {flags, input} = parse('--keep', 'demo');
		expect(flags.keep).toBe('');
		expect(input).toEqual(['demo']);
	});

	it('knows -o as --output, -h as --help, and --version', () => {
		expect(parse('backup', '-o', '/tmp/x').flags.output).toBe('/tmp/x');
		expect(parse('scan', '-h').help).toBe(true);
		expect(parse('--help').help).toBe(true);
		expect(parse('--version').version).toBe(true);
		expect(parse('scan').help).toBe(false);
	});

	it('treats everything after -- as words, and a lone - as a word', () => {
		const {input, flags} = parse('routing', '--', '--json', '-');
		expect(input).toEqual(['routing', '--json', '-']);
		expect(flags.json).toBe(false);
		expect(parse('verify', '-').input).toEqual(['verify', '-']);
	});
});

describe('hfx command line (the built binary)', () => {
	it('prints one usage line and exits 2 on a bad flag, before touching any store', () => {
		for (const [args, line] of [
			[['--bogus'], 'hfx: unknown flag --bogus. See: hfx --help'],
			[['scan', '--db', '/a', '--db', '/b'], 'hfx: --db is given twice. See: hfx --help'],
			[['scan', '--db'], 'hfx: --db needs a value. See: hfx --help'],
			[['sessions', '--limit', 'many'], 'hfx: --limit needs a number, not "many". See: hfx --help'],
			[['sessions', '--limit', '-5'], 'hfx: --limit takes a whole number of rows (0 = all), not -5. See: hfx --help'],
			[['sessions', '--limit', '2.5'], 'hfx: --limit takes a whole number of rows (0 = all), not 2.5. See: hfx --help'],
			[['backup', '--quick', '--profile', '../../etc'], 'hfx: --profile takes a profile name (lowercase letters, digits, - and _), not "../../etc". See: hfx --help'],
			[['scan', '--profile', '/tmp'], 'hfx: --profile takes a profile name (lowercase letters, digits, - and _), not "/tmp". See: hfx --help'],
		] as const) {
			const r = hfx([...args]);
			expect(r.stderr.trim()).toBe(line);
			expect(r.code).toBe(2);
			expect(r.stdout).toBe('');
		}
	});

	it('prints the help (exit 0) and the package version', () => {
		const help = hfx(['scan', '--help']);
		expect(help.code).toBe(0);
		expect(help.stdout).toContain('Usage');
		expect(help.stdout).toContain('$ hfx scan');
		const version = hfx(['--version']);
		expect(version.code).toBe(0);
		expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
	});
});
