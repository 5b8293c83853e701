/**
 * Issue #27 under faults: the installed build read when no gateway runs (hermes-incidents §3.2 step
 * 2: the install's checkout HEAD, from git's own files, or `.hermes_build_sha`). Class 9 (what
 * already holds): a checkout at a commit before #91543 makes scan, routing and the repair's dry run
 * judge a garbage donor by that build's rules and say so. Class 8 (injection): a HEAD and a
 * packed-refs that print escapes and a megabyte name no build, and nothing of them reaches the
 * terminal raw. Class 3 (hangs): a FIFO as HEAD and as packed-refs is never opened for a read that
 * would wait. Class 2 (symlinks): a HEAD that is a link to itself and a `.git` pointer to a device
 * name no build, one phrase, no crash. 0 evidence bytes changed in each: the install is under the
 * home, evidence too.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {SHA_WITHOUT, garbageDonorStore, sourceCheckout} from '../../helpers/installed-build.js';
import type {Fault, RunResult, Step} from '../types.js';
import {finding, ok, verdict} from './kit.js';

const expectIn = (text: string, pattern: RegExp, what: string): string | null =>
	pattern.test(text) ? null : `${what}: ${pattern} not found in ${text.slice(0, 400)}`;

/** No build named from a hostile install: said in one phrase, both candidate rule sets kept. */
const unknownBuild =
	(why: RegExp) =>
	(r: RunResult): string | null =>
		expectIn(r.stdout, /^build unknown \(or v30 before #91543\), weak: the installed build is unknown: /m, 'unknown') ??
		expectIn(r.stdout, why, 'the cause') ??
		(/pwned|\u001B/.test(r.stdout + r.stderr) ? 'the install files reached the terminal raw' : null);

function kind(
	id: string,
	cls: Fault['cls'],
	notes: string,
	plant: (install: string) => void,
	steps: (db: string) => Step[],
): Fault {
	return {
		id,
		cls,
		outcome: 'finding',
		notes,
		setup(t) {
			const home = t.dir('home');
			const s = garbageDonorStore(home);
			const install = path.join(home, 'hermes-agent');
			plant(install);
			return {evidence: [home], steps: steps(s.db)};
		},
	};
}

/** A checkout at a commit before #91543 made hostile by `spoil` (given its .git folder), then one scan. */
function scanKind(id: string, cls: Fault['cls'], notes: string, spoil: (git: string) => void, why: RegExp): Fault {
	return kind(
		id,
		cls,
		notes,
		install => {
			sourceCheckout(install, SHA_WITHOUT);
			spoil(path.join(install, '.git'));
		},
		db => [finding(['scan', '--db', db], {check: unknownBuild(why)})],
	);
}

export const INSTALLED_BUILD: Fault[] = [
	kind(
		'installed-build-checkout-before-91543',
		9,
		'no gateway runs; the checkout HEAD (a loose ref) is a commit §3.3 names as lacking #91543: scan, routing ' +
			'and the repair dry run judge by "v30 before #91543", the orphan refused, flagged installed (medium)',
		install => sourceCheckout(install, SHA_WITHOUT, '0.20.5'),
		db => [
			finding(['scan', '--db', db], {
				check: r =>
					expectIn(r.stdout, /^rule set v30 before #91543: .*but this build lacks #91543/m, 'the rule set line') ??
					expectIn(r.stdout, /^build 0\.20\.5@f31cf9710000, medium: .*installed, maybe not running/m, 'the build'),
			}),
			ok(['routing', '--db', db], {
				check: r => expectIn(r.stdout, /^rule set v30 before #91543: /m, 'the rule set line'),
			}),
			verdict(['repair', '--db', db], {
				check: r =>
					expectIn(r.stdout, / · rules of Hermes v30 before #91543$/m, 'the repair says its rules') ??
					expectIn(r.stdout, /not repairable .*no donor|Nothing repair-routing would adopt/m, 'nothing adopted'),
			}),
		],
	),
	scanKind(
		'installed-build-hostile-head',
		8,
		'a HEAD of escapes (OSC 52, clear screen) before a commit: no build named, the cause said, nothing raw',
		git => fs.writeFileSync(path.join(git, 'HEAD'), `\u001b]52;c;cHdubmVk\u0007\u001b[2J${SHA_WITHOUT}\n`),
		/resolves to no 40-hex commit/,
	),
	scanKind(
		'installed-build-hostile-packed-refs',
		8,
		'HEAD on a branch whose packed-refs is a megabyte of escapes: capped, no build named, nothing raw',
		git => {
			fs.writeFileSync(path.join(git, 'HEAD'), 'ref: refs/heads/pwned\n');
			fs.writeFileSync(path.join(git, 'packed-refs'), `\u001b]0;pwned\u0007${'\u001b[31m'.repeat(1 << 18)}`);
		},
		/packed-refs is larger than 1048576 bytes/,
	),
	scanKind(
		'installed-build-fifo-head',
		3,
		'a FIFO as HEAD (a read would wait for a writer forever): scan ends at once, the build unknown',
		git => {
			fs.rmSync(path.join(git, 'HEAD'));
			execFileSync('mkfifo', [path.join(git, 'HEAD')]);
		},
		/HEAD cannot be read as a file/,
	),
	scanKind(
		'installed-build-fifo-packed-refs',
		3,
		'HEAD on a branch with no loose ref and a FIFO as packed-refs: scan ends at once, the build unknown',
		git => {
			fs.writeFileSync(path.join(git, 'HEAD'), 'ref: refs/heads/packed\n');
			execFileSync('mkfifo', [path.join(git, 'packed-refs')]);
		},
		/packed-refs cannot be read as a file/,
	),
	scanKind(
		'installed-build-head-link-loop',
		2,
		'a HEAD that is a symbolic link to itself (ELOOP): no build named, one phrase, no crash',
		git => {
			fs.rmSync(path.join(git, 'HEAD'));
			fs.symlinkSync('HEAD', path.join(git, 'HEAD'));
		},
		/HEAD cannot be read as a file/,
	),
	scanKind(
		'installed-build-gitdir-device',
		2,
		'a .git pointer file to a device (gitdir: /dev/null): no build named, one phrase, no crash',
		git => {
			fs.rmSync(git, {recursive: true});
			fs.writeFileSync(git, 'gitdir: /dev/null\n');
		},
		/HEAD cannot be read as a file|has no HEAD/,
	),
];
