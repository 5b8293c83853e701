/**
 * The command line's contract: each command parses its own flags with meow and refuses any other
 * (one usage line, exit 2, nothing read); a store operand is --db; help per command comes from the
 * same table the parser runs on.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {UsageError, parseCommandLine} from '../../source/cli/args.js';
import {COMMANDS, commandNamed} from '../../source/cli/commands.js';
import {flagSynopsis} from '../../source/cli/flags.js';
import {evidenceState, hfx} from '../helpers/cli.js';
import {ROOT} from '../helpers/writer.js';

const flagsOf = (name: string) => commandNamed(name)!.flags;
const parse = (name: string, ...argv: string[]) => parseCommandLine(argv, flagsOf(name), name);
const usage = (name: string, ...argv: string[]): string => {
	try {
		parse(name, ...argv);
	} catch (error) {
		expect(error).toBeInstanceOf(UsageError);
		return (error as Error).message;
	}

	throw new Error(`parsed: ${argv.join(' ')}`);
};

describe('parseCommandLine (meow, one flag set per command)', () => {
	it('reads kebab-case flags as camelCase, with the value after a space or an =', () => {
		const {flags, operands} = parse('scan', '--db', '/a/state.db', '--max-gap-seconds=60', 'x');
		expect(operands).toEqual(['x']);
		expect(flags.db).toBe('/a/state.db');
		expect(flags.maxGapSeconds).toBe('60');
		expect(flags.home).toBeUndefined();
	});

	it('switches on with --name, off with --no-name or --name=false; anything else is refused', () => {
		expect(parse('scan', '--json').flags.json).toBe(true);
		expect(parse('scan', '--no-color').flags.color).toBe(false);
		expect(parse('scan', '--color=false').flags.color).toBe(false);
		expect(parse('scan').flags.color).toBe(true);
		expect(usage('scan', '--json=yes')).toBe('--json is a switch (true or false), not "yes"');
		expect(usage('scan', '--no-db')).toBe('--no-db: only a switch has a --no- form; --db takes a value');
	});

	it('refuses a flag of another command, a repeated flag and a flag without its value', () => {
		expect(usage('scan', '--yes')).toBe('scan has no flag --yes');
		expect(usage('backup', '--apply')).toBe('backup has no flag --apply');
		expect(usage('repair', '--drill')).toBe('repair has no flag --drill');
		expect(usage('scan', '-x')).toBe('scan has no flag -x');
		expect(usage('scan', '--db', '/a', '--db', '/b')).toBe('--db is given twice');
		expect(usage('scan', '--max-gap-seconds', '5', '--maxGapSeconds', '7')).toBe('--max-gap-seconds is given twice');
		expect(usage('scan', '--db')).toBe('--db needs a value (PATH)');
		expect(usage('scan', '--db', '--json')).toBe('--db needs a value (PATH)');
	});

	it('collects a repeatable flag in order; -o is --output; -h is --help', () => {
		expect(parse('repair', '--only', 'a', '--only=b').flags.only).toEqual(['a', 'b']);
		expect(parse('repair').flags.only).toBeUndefined();
		expect(parse('backup', '-o', '/tmp/x').flags.output).toBe('/tmp/x');
		expect(parse('scan', '-h').help).toBe(true);
		expect(parse('scan').help).toBe(false);
	});

	it('gives --keep its own meaning per command: a switch for demo, a count for backup', () => {
		expect(parse('demo', '--keep').flags.keep).toBe(true);
		expect(parse('backup', '--keep', '3').flags.keep).toBe('3');
		expect(usage('backup', '--keep')).toBe('--keep needs a value (N)');
	});

	it('treats everything after -- as operands', () => {
		const {operands, flags} = parse('routing', '--', '--json');
		expect(operands).toEqual(['--json']);
		expect(flags.json).toBe(false);
	});
});

describe('hfx command line (the built binary)', () => {
	const temps: string[] = [];
	afterAll(() => {
		for (const t of temps) {
			fs.rmSync(t, {recursive: true, force: true});
		}
	});

	it('refuses an unknown flag on every command: one usage line naming it and the command, exit 2', () => {
		for (const spec of COMMANDS) {
			const r = hfx([...(spec.name ? [spec.name] : []), '--unknown-flag']);
			expect({command: spec.name, code: r.code, stdout: r.stdout}).toEqual({command: spec.name, code: 2, stdout: ''});
			expect(r.stderr).toBe(
				`hfx: ${spec.name || 'the TUI (hfx)'} has no flag --unknown-flag. See: ` +
					`hfx ${spec.name ? `${spec.name} ` : ''}--help\n`,
			);
		}
	});

	it('prints one usage line and exits 2 on a bad value or operand, before touching any store', () => {
		for (const [args, line] of [
			[
				['sessions', '--limit', 'many'],
				'hfx: --limit takes a whole number of rows (0 = all), not "many". See: hfx sessions --help',
			],
			[
				['sessions', '--limit', '-5'],
				'hfx: --limit takes a whole number of rows (0 = all), not "-5". See: hfx sessions --help',
			],
			[
				['sessions', '--limit', '2.5'],
				'hfx: --limit takes a whole number of rows (0 = all), not "2.5". See: hfx sessions --help',
			],
			[
				['backup', '--keep', 'x'],
				'hfx: --keep takes a whole number of archives (0 keeps all), not "x". See: hfx backup --help',
			],
			[
				['backup', '--quick', '--profile', '../../etc'],
				'hfx: --profile takes a profile name (lowercase letters, digits, - and ' +
					'_), not "../../etc". See: hfx backup --help',
			],
			[['scan', 'a', 'b'], 'hfx: scan takes only [STORE]; "b" is extra. See: hfx scan --help'],
			[['doctor', '/x'], 'hfx: doctor takes no operand; "/x" is extra. See: hfx doctor --help'],
			[
				['--json', 'scan'],
				'hfx: the TUI (hfx) takes no operand; "scan" is extra; a command goes first: hfx scan …. See: hfx --help',
			],
			[['lineage'], 'hfx: lineage needs ID: hfx lineage ID. See: hfx lineage --help'],
			[
				['scan', '/a/state.db', '--db', '/b/state.db'],
				'hfx: scan was given two stores ("/a/state.db" and --db "/b/state.db"): name one. See: hfx scan --help',
			],
			[['frob'], 'hfx: unknown command "frob". See: hfx --help'],
			[
				['--pane', 'bogus'],
				'hfx: --pane takes one of sessions, detail, lineage, routing, findings, ' +
					'files, activity, backups, not "bogus". See: hfx --help',
			],
			[
				['demo', '--pane', 'sesions'],
				'hfx: --pane takes one of sessions, detail, lineage, routing, findings, ' +
					'files, activity, backups, not "sesions". See: hfx demo --help',
			],
		] as const) {
			const r = hfx([...args]);
			expect({args, stderr: r.stderr, code: r.code, stdout: r.stdout}).toEqual({
				args,
				stderr: `${line}\n`,
				code: 2,
				stdout: '',
			});
		}
	});

	it("prints each command's own help: its usage, every flag it takes, its exit codes, an example", () => {
		for (const spec of COMMANDS.filter(c => c.name)) {
			const r = hfx([spec.name, '--help']);
			expect(r.code).toBe(0);
			expect(hfx(['help', spec.name]).stdout).toBe(r.stdout);
			for (const u of spec.usage) {
				expect(r.stdout).toContain(`$ hfx ${u}`);
			}

			for (const [name, def] of Object.entries(spec.flags)) {
				expect(r.stdout).toContain(flagSynopsis(name, def));
			}

			expect(r.stdout).toContain('Exit codes');
			expect(r.stdout).toContain(`$ ${spec.example}`);
		}

		expect(hfx(['restore', '--help']).stdout).not.toContain('--max-gap-seconds');
		expect(hfx(['--help']).stdout).toContain('hfx CMD --help');
		expect(hfx(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
	});

	it('reads a store operand as --db: the report is on that store, and the store is unchanged', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-operand-'));
		temps.push(dir);
		fs.copyFileSync(path.join(ROOT, 'test/fixtures/hermes-v21-incident/state.db'), path.join(dir, 'state.db'));
		const db = path.join(dir, 'state.db');
		const before = evidenceState(dir);
		for (const command of ['scan', 'sessions', 'files']) {
			const byOperand = hfx([command, db, '--json']);
			const byFlag = hfx([command, '--db', db, '--json']);
			expect(byOperand.stderr).toBe(byFlag.stderr);
			expect(byOperand.code).toBe(byFlag.code);
			expect(JSON.stringify(JSON.parse(byOperand.stdout))).toContain(db);
		}

		// Same store by operand and by --db is not a conflict.
		expect(hfx(['scan', db, '--db', db]).code).toBe(hfx(['scan', '--db', db]).code);
		expect(evidenceState(dir)).toEqual(before);
	});
});
