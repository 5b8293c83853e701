/**
 * Child of scripts/meow-bundle.mjs: reads meow's bundled script on stdin, runs it as the bin
 * does (scripts/meow-load.mjs) and parses a command line with it, so the functions a start
 * compiles are compiled, and makes V8's code cache for the script (sealed with its CRC-32). It
 * then loads the script again with that cache, exits 1 if V8 rejects it, and else prints it.
 */
import {loadMeow, sealed} from './meow-load.mjs';

const source = await new Promise((resolve, reject) => {
	const chunks = [];
	process.stdin.on('data', c => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks).toString('utf8'))).on('error', reject);
});

/** A start's parse: hfx's flags for a command (source/cli-args.ts meowFlags gives meow the same shapes). */
function parse(meow) {
	meow({argv: ['--db', 'x.db', '--json', '--only', 'a', '--only', 'b', '--dry-run', 'word'], importMeta: import.meta, pkg: {}, allowUnknownFlags: false, autoHelp: false, autoVersion: false, description: false, flags: {
		help: {type: 'boolean', shortFlag: 'h'}, version: {type: 'boolean'}, json: {type: 'boolean'}, dryRun: {type: 'boolean', default: false},
		db: {type: 'string'}, only: {type: 'string', isMultiple: true}, output: {type: 'string', shortFlag: 'o'},
	}});
}

const first = loadMeow(source);
parse(first.meow);
const cache = sealed(first.script.createCachedData());

const again = loadMeow(source, cache);
if (again.cacheRejected !== false) {
	process.stderr.write('this Node rejects the code cache it just made for meow\n');
	process.exit(1);
}

parse(again.meow);
process.stdout.write(`${cache}\n`);
