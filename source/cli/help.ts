/**
 * The help pages, written from the command table: `hfx --help` (every command, one line each) and
 * `hfx CMD --help` / `hfx help CMD` (that command's usage, operands, flags, exit codes and an
 * example). Nothing here is typed twice: a flag's line is the one its definition carries.
 */
import {type CommandSpec, COMMANDS, EXIT_CODES} from './commands.js';
import {flagSynopsis} from './flags.js';

const COLUMN = 34;
const WIDTH = 100;

/** Words of `text` in lines of at most `width` characters (a longer word stands alone). */
function wrap(text: string, width: number): string[] {
	const lines: string[] = [];
	let line = '';
	for (const word of text.split(' ')) {
		if (line && line.length + 1 + word.length > width) {
			lines.push(line);
			line = word;
		} else {
			line = line ? `${line} ${word}` : word;
		}
	}

	return [...lines, line];
}

/** A left column and its description, wrapped under the description's column. */
function row(left: string, right: string): string {
	const head = `    ${left}`;
	const [first = '', ...more] = wrap(right, WIDTH - COLUMN);
	const indent = ' '.repeat(COLUMN);
	const lines = head.length < COLUMN - 1 ? [`${head.padEnd(COLUMN)}${first}`] : [head, `${indent}${first}`];
	return [...lines, ...more.map(m => `${indent}${m}`)].join('\n');
}

const OPERAND_HELP: Record<string, string> = {
	STORE: 'a state.db path, read as --db (one store)',
	ID: 'a session id, or a unique part of it',
	CHAT:
		'a session key, or a session id (or a unique part of it) of one of the ' +
		"chat's rows: a keyless row a rollback skipped or an orphan adoptable " +
		'into it too',
	KEY: 'a session key (agent:main:telegram:dm:12345); without it, every chat',
	ACTION: 'verify (the hash chain) or show (every entry)',
	FILE: 'the audit trail (default: the one beside the store)',
	ARCHIVE:
		"an hfx or `hermes backup` zip, a quick snapshot folder (hfx's or " +
		"Hermes'), or a tar.gz of a home or volume (its Hermes root found inside)",
};

export function commandHelp(spec: CommandSpec): string {
	const lines = ['', `  hfx ${spec.name}: ${spec.summary}`.replace('hfx : ', 'hfx: '), '', '  Usage'];
	lines.push(...spec.usage.map(u => `    $ hfx ${u}`.trimEnd()));
	if (spec.operands.length > 0) {
		lines.push('', '  Operands');
		lines.push(...spec.operands.map(o => row(o.required ? o.name : `[${o.name}]`, OPERAND_HELP[o.name] ?? '')));
	}

	lines.push('', '  Flags');
	lines.push(...Object.entries(spec.flags).map(([name, def]) => row(flagSynopsis(name, def), def.help)));
	lines.push(row('-h, --help', 'this page'));
	lines.push('', '  Exit codes', ...EXIT_CODES[spec.exits].map(e => `    ${e}`));
	lines.push('', '  Example', `    $ ${spec.example}`, '');
	return lines.join('\n');
}

export function globalHelp(): string {
	const lines = [
		'',
		"  hfx: live forensics of Hermes Agent's session store (state.db). " +
			'Read-only unless you ask for a repair or restore.',
		'',
		'  Usage',
	];
	for (const spec of COMMANDS) {
		const [first = '', ...more] = spec.usage;
		lines.push(row(`$ hfx ${first}`.trimEnd(), spec.summary));
		lines.push(...more.map(u => `    $ hfx ${u}`));
	}

	lines.push(
		'',
		'  Every command: hfx CMD --help (or hfx help CMD) for its operands, flags, exit codes and an example.',
		'  --json on every report; --no-color (or NO_COLOR) for monochrome; --version.',
		'',
		'  Exit codes',
		'    reports: 0 healthy, 1 findings (an orphan or a rollback risk), 2 ' +
			'could not be done (one line on stderr says why)',
		'    backup, verify, restore, gate, doctor: 0 done and sound, 1 skipped ' +
			'/ damaged / partial / blocked / warnings, 2 refused, nothing written',
		'',
		'  In the TUI: 1-8 or Tab switch panes, j/k move, Enter opens, / ' +
			'filters, p pauses, y copies, ? lists every key, q quits.',
		'',
		'  Examples',
		'    $ hfx                           # live view of ~/.hermes (the demo when there is none)',
		'    $ hfx scan /srv/hermes/state.db',
		'    $ hfx routing agent:main:telegram:dm:12345',
		'',
	);
	return lines.join('\n');
}
