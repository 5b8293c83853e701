/**
 * The README's command reference and key list, written from the tables the binary runs on (the
 * command table and the key table), so the README cannot drift from them: `npm run readme`
 * rewrites the two marked blocks, and test/build/readme.test.ts fails when they differ.
 */
import {COMMANDS} from './commands.js';
import {type FlagDef, STORE_FLAGS, flagSynopsis} from './flags.js';
import {REFUSAL_KINDS} from '../ground/refusal-kinds.js';
import {helpRows} from '../ui/keys/lookup.js';

const cell = (text: string): string => text.replaceAll('|', '\\|');

/** A command's flags for the table: the five store flags as one word when it takes them all. */
function flagCell(flags: Readonly<Record<string, FlagDef>>): string {
	const store = Object.keys(STORE_FLAGS).every(name => flags[name] === STORE_FLAGS[name as keyof typeof STORE_FLAGS]);
	const own = Object.entries(flags).filter(([name]) => !(store && Object.hasOwn(STORE_FLAGS, name)));
	return [...(store ? ['the store flags'] : []), ...own.map(([name, def]) => `\`${flagSynopsis(name, def)}\``)].join(
		' ',
	);
}

/** One row per command: its usage lines, what it does, the flags it takes. */
export function commandReference(): string {
	const rows = COMMANDS.map(spec => {
		const usage = spec.usage.map(u => `\`hfx ${u}\``.replace(' `', '`').replace('`hfx `', '`hfx`')).join('<br>');
		const flags = flagCell(spec.flags);
		return `| ${cell(usage)} | ${cell(spec.summary)} | ${cell(flags)} |`;
	});
	const store = Object.entries(STORE_FLAGS)
		.map(([name, def]) => `\`${flagSynopsis(name, def)}\``)
		.join(' ');
	return ['| command | what it does | flags |', '| --- | --- | --- |', ...rows, '', `The store flags: ${store}.`].join(
		'\n',
	);
}

/** One row per documented key: the key, what it does, where it works. */
export function keyReference(): string {
	const rows = helpRows('').map(r => `| \`${cell(r.label)}\` | ${cell(r.description)} | ${cell(r.where)} |`);
	return ['| key | what it does | where |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The closed list of refusal kinds (`error.kind` under --json). */
export function kindReference(): string {
	const rows = Object.entries(REFUSAL_KINDS).map(([kind, meaning]) => `| \`${kind}\` | ${cell(meaning)} |`);
	return [
		'| kind | the refusal |',
		'| --- | --- |',
		...rows,
		'| `errno-<code>` | a file error of the OS, by its code in lower case ' +
			'(`errno-eloop`, `errno-eacces`, `errno-enametoolong`…) |',
	].join('\n');
}

export const BLOCKS = {commands: commandReference, keys: keyReference, kinds: kindReference} as const;

/** `text` with each `<!-- NAME:start -->…<!-- NAME:end -->` block replaced by what its table says now. */
export function withReferences(text: string): string {
	let out = text;
	for (const [name, render] of Object.entries(BLOCKS)) {
		const pattern = new RegExp(`(<!-- ${name}:start -->)[\\s\\S]*?(<!-- ${name}:end -->)`);
		if (!pattern.test(out)) {
			throw new Error(`README has no ${name} block (<!-- ${name}:start --> … <!-- ${name}:end -->)`);
		}

		out = out.replace(pattern, (_m, start: string, end: string) => `${start}\n${render()}\n${end}`);
	}

	return out;
}
