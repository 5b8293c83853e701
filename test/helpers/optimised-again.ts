/**
 * Whether V8 compiles the same optimised code again and again (issue #26): code run in a second node (the compiled
 * dist/), a full mark-compact (`gc()`) after each round of calls, and the optimised code V8 made for one dist module's
 * functions after the warm-up rounds, read from V8's code log (--log-code). A function whose optimised code only
 * short-lived closures hold (a callback made per call) loses that code at each mark-compact, and the next round
 * compiles it again: it shows once a round. Code a long-lived function holds shows once, while warming up.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {ROOT} from './writer.js';

export type OptimisedAgainOptions = {
	/** The module whose functions are watched: under dist/ ('store/read/load.js'), or a patched one in node_modules/. */
	module: string;
	/** Module text run once first: imports (`{{dist}}` is dist/'s URL) and the data. */
	setup: string;
	/** One call, run `calls` times a round. */
	call: string;
	calls?: number;
	rounds?: number;
	warm?: number;
};

/**
 * The optimised code made for `module`'s functions after the warm-up rounds, as `tier line:col` (`*` TurboFan,
 * `+` Maglev).
 */
export function optimisedAgain(options: OptimisedAgainOptions): string[] {
	const {calls = 300, rounds = 5, warm = 2} = options;
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-opt-'));
	try {
		const dist = pathToFileURL(path.join(ROOT, 'dist')).href;
		const script = path.join(dir, 'run.mjs');
		fs.writeFileSync(
			script,
			`import vm from 'node:vm';\n${options.setup.replaceAll('{{dist}}', dist)}\n` +
				`for (let round = 0; round < ${rounds}; round++) {\n` +
				`\tfor (let i = 0; i < ${calls}; i++) { ${options.call}; }\n` +
				`\tvm.runInThisContext('0', {filename: 'hfx-round-' + round});\n\tglobalThis.gc();\n}\n`,
		);
		const log = path.join(dir, 'v8.log');
		const flags = ['--expose-gc', '--no-concurrent-recompilation', '--log-code', `--logfile=${log}`];
		const r = spawnSync(process.execPath, [...flags, '--no-logfile-per-isolate', script], {encoding: 'utf8'});
		if (r.status !== 0) {
			throw new Error(`the optimisation probe failed: ${r.stderr}`);
		}

		const base = options.module.startsWith('node_modules/') ? pathToFileURL(ROOT).href : dist;
		return codeAfterWarmUp(fs.readFileSync(log, 'utf8'), `${base}/${options.module}:`, warm);
	} finally {
		fs.rmSync(dir, {recursive: true, force: true});
	}
}

function codeAfterWarmUp(log: string, prefix: string, warm: number): string[] {
	const out: string[] = [];
	let round = 0;
	for (const line of log.split('\n')) {
		if (/^code-creation,Script,.* hfx-round-\d+:/.test(line)) {
			round++;
			continue;
		}

		const m = line.match(/^code-creation,JS,.*? (\S+),0x[0-9a-f]+,([*+])$/);
		if (round >= warm && m?.[1]?.startsWith(prefix)) {
			out.push(`${m[2]} ${m[1].slice(prefix.length)}`);
		}
	}

	return out;
}
