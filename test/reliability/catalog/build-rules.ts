/**
 * Issue #27 point 2 under faults: the rules of the installed build. Class 9 (what already holds):
 * a running gateway of a build before #91543 makes `hfx scan` and `hfx routing` judge a garbage
 * donor by that build's rules and say so. Class 3 (hangs): a `hermes` on PATH that never answers
 * `--version`, and leaves a child behind, costs `--ask-hermes` 5 s and nothing survives it. Class 8
 * (injection): a `hermes --version` that prints escapes, quotes, newlines and a megabyte names no
 * build, and nothing of it reaches the terminal raw. 0 evidence bytes changed in each.
 */
import fs from 'node:fs';
import path from 'node:path';
import {StoreWriter} from '../../../source/simulator/store-writer.js';
import type {Fault, RunResult, Step} from '../types.js';
import {finding, ok} from './kit.js';

const T0 = 1_786_060_800;
const MIN = 60;

/** A v30 store whose keyed donor carries the garbage last_activity_at of #91536, and a keyless orphan after it. */
function garbageDonorStore(home: string): string {
	const db = path.join(home, 'state.db');
	const w = new StoreWriter(db, {shape: 'v30'});
	const key = 'agent:main:telegram:dm:77';
	const donor = w.createSession({
		source: 'telegram',
		userId: 'u77',
		chatId: '77',
		chatType: 'dm',
		sessionKey: key,
		startedAt: T0,
	});
	w.addConversation(donor, 10, T0 + 10, T0 + 15 * MIN);
	w.db.prepare('UPDATE sessions SET last_activity_at = ? WHERE id = ?').run(5.49e246, donor);
	w.setRouting(key, donor, T0 + 15 * MIN);
	const orphan = w.createSession({source: 'telegram', userId: 'u77', startedAt: T0 + 16 * MIN});
	w.addConversation(orphan, 10, T0 + 16 * MIN + 10, T0 + 60 * MIN);
	w.close();
	return db;
}

/** Start ticks of this process: a gateway_state.json naming a process that runs. */
function ownStartTicks(): number {
	const stat = fs.readFileSync('/proc/self/stat', 'utf8');
	return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

const expectIn = (text: string, pattern: RegExp, what: string): string | null =>
	pattern.test(text) ? null : `${what}: ${pattern} not found in ${text.slice(0, 400)}`;

/** A fake `hermes` in its own folder (not evidence), put first on PATH. */
function fakeHermes(dir: string, script: string): NodeJS.ProcessEnv {
	fs.writeFileSync(path.join(dir, 'hermes'), `#!/bin/sh\n${script}\n`, {mode: 0o755});
	return {PATH: `${dir}:${process.env.PATH}`};
}

/** Runs and is not a zombie awaiting its reaper (state Z in /proc/<pid>/stat). */
function alive(pid: number): boolean {
	const stat = fs.existsSync(`/proc/${pid}/stat`) ? fs.readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
	return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

function kind(
	id: string,
	cls: Fault['cls'],
	notes: string,
	steps: (db: string, bin: string) => Step[],
	plant?: (home: string) => void,
): Fault {
	return {
		id,
		cls,
		outcome: 'finding',
		notes,
		setup(t) {
			const home = t.dir('home');
			const db = garbageDonorStore(home);
			plant?.(home);
			return {evidence: [home], steps: steps(db, t.dir('bin'))};
		},
	};
}

export const BUILD_RULES: Fault[] = [
	kind(
		'build-rules-gateway-before-91543',
		9,
		'a running gateway stamped 0.20.5 at a commit §3.3 names as lacking ' +
			'#91543: scan and routing judge by "v30 before #91543", the orphan ' +
			'refused, said with the build and why',
		db => [
			finding(['scan', '--db', db], {
				check: (r: RunResult) =>
					expectIn(r.stdout, /^rule set v30 before #91543: .*but this build lacks #91543/m, 'the rule set line') ??
					expectIn(r.stdout, /^build 0\.20\.5@f31cf9710000, strong: /m, 'the build line') ??
					expectIn(r.stdout, /not repairable \(no_predecessor\)/, 'the refusal'),
			}),
			// That build adopts nothing, so no chat is at risk by its rules: routing exits 0.
			ok(['routing', '--db', db], {
				check: (r: RunResult) => expectIn(r.stdout, /^rule set v30 before #91543: /m, 'the rule set line'),
			}),
		],
		home =>
			fs.writeFileSync(
				path.join(home, 'gateway_state.json'),
				JSON.stringify({
					pid: process.pid,
					start_time: ownStartTicks(),
					gateway_state: 'running',
					code_version: '0.20.5',
					code_sha: `f31cf971${'0'.repeat(32)}`,
				}),
			),
	),
	kind(
		'build-rules-hermes-hangs',
		3,
		'--ask-hermes with a hermes on PATH that never answers and leaves a ' +
			'child: the scan ends after the 5 s timeout, says so, shows both ' +
			'verdicts, and the hermes group is gone',
		(db, bin) => [
			finding(['scan', '--db', db, '--ask-hermes'], {
				env: fakeHermes(
					bin,
					`echo $$ > ${path.join(bin, 'pids')}\nsleep 50 &\necho $! >> ${path.join(bin, 'pids')}\nwait`,
				),
				check: (r: RunResult) =>
					expectIn(
						r.stdout,
						/^build unknown \(or v30 before #91543\), weak: `hermes --version` gave no answer in 5 s; /m,
						'the timeout said',
					) ??
					expectIn(r.stdout, /^Build unknown: with v30 before #91543 rules these verdicts differ/m, 'both verdicts') ??
					(fs.readFileSync(path.join(bin, 'pids'), 'utf8').trim().split('\n').map(Number).some(alive)
						? 'a process of the hermes group survived'
						: null),
			}),
		],
	),
	kind(
		'build-rules-hermes-hostile',
		8,
		'--ask-hermes with a hermes whose --version prints ESC, OSC, quotes, ' +
			'newlines and a megabyte: no build named, nothing raw on the terminal',
		(db, bin) => [
			finding(['scan', '--db', db, '--ask-hermes'], {
				env: fakeHermes(
					bin,
					'printf \'\\033[2J\\033]0;pwned\\007Hermes "v\\033[31m0.21.4\\n(main @ ' +
						'zz)\\n\'\nhead -c 1048576 /dev/zero | tr "\\\\0" x',
				),
				check: (r: RunResult) =>
					expectIn(r.stdout, /^build unknown \(or v30 before #91543\), weak: /m, 'no build named') ??
					(/pwned|\u001B/.test(r.stdout + r.stderr) ? 'the hermes output reached the terminal' : null),
			}),
		],
	),
];
