/**
 * Issue #27, the installed build when no gateway runs (hermes-incidents §3.2 step 2): the
 * install's checkout HEAD, read from git's own files (no `git` process), else the Docker image's
 * `.hermes_build_sha`, flagged "installed, maybe not running" (confidence at most medium). Through
 * the built binary, on a real store written by the simulator's writer: the rules of that build
 * judge `hfx scan` and `hfx routing`. Hostile install files (a megabyte HEAD, a ref climbing out
 * of .git, escapes, a FIFO, a pointer to nowhere) make the build unknown, said in one phrase:
 * never a crash, a stack trace or a hang, and nothing written.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {evidenceState, hfx, hfxJson} from '../helpers/cli.js';
import {SHA_WITH, SHA_WITHOUT, garbageDonorStore, orphanVerdict, sourceCheckout} from '../helpers/installed-build.js';

let dir: string;
const env = {HERMES_HOME: '', HERMES_INSTALL_DIR: ''};

beforeAll(() => {
	dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-installed-build-'));
});

afterAll(() => {
	fs.rmSync(dir, {recursive: true, force: true});
});

describe('the installed build when no gateway runs (issue #27, §3.2 step 2)', () => {
	it('a source checkout at a commit before #91543: its rules judge scan and routing, flagged installed', () => {
		const s = garbageDonorStore(path.join(dir, 'source'));
		sourceCheckout(path.join(s.home, 'hermes-agent'), SHA_WITHOUT, '0.20.5');
		const before = evidenceState(s.home);
		const {json, code} = hfxJson(['scan', '--db', s.db], {env});
		expect(code).toBe(1);
		expect(json.rules).toMatchObject({
			rules: 'v30 before #91543',
			build: '0.20.5@f31cf9710000',
			confidence: 'medium',
			alternative: null,
		});
		expect(json.rules.decidedBy).toContain(`the checkout HEAD of ${path.join(s.home, 'hermes-agent')}`);
		expect(json.rules.decidedBy).toContain('installed, maybe not running');
		expect(orphanVerdict(json, s.orphan)).toBe('refused (no_predecessor)');
		const routing = hfx(['routing', '--db', s.db], {env}).stdout;
		expect(routing).toMatch(/^rule set v30 before #91543: /m);
		expect(routing).toMatch(
			/^build 0\.20\.5@f31cf9710000, medium: build 0\.20\.5@f31cf9710000 from the checkout HEAD/m,
		);
		// The fleet's one info series names the build the rules came from, with those rules.
		const metrics = hfx(['metrics', '--db', s.db], {env}).stdout;
		expect(metrics).toMatch(/^hfx_store_info\{[^}]*rule_set="v30 before #91543"[^}]*build="0\.20\.5@f31cf9710000"/m);
		expect(evidenceState(s.home)).toEqual(before);
	});

	it('a worktree pointer and packed-refs, and a detached HEAD at a commit with #91543: adopted', () => {
		const s = garbageDonorStore(path.join(dir, 'worktree'));
		// The main repository elsewhere, its refs packed; the install is a worktree of it.
		const main = path.join(dir, 'main-repo.git');
		const wt = path.join(main, 'worktrees/hermes');
		fs.mkdirSync(wt, {recursive: true});
		fs.writeFileSync(path.join(main, 'packed-refs'), `# pack-refs with: peeled\n${SHA_WITH} refs/heads/stable\n`);
		fs.writeFileSync(path.join(wt, 'HEAD'), 'ref: refs/heads/stable\n');
		fs.writeFileSync(path.join(wt, 'commondir'), '../..\n');
		fs.mkdirSync(path.join(s.home, 'hermes-agent'));
		fs.writeFileSync(path.join(s.home, 'hermes-agent/.git'), `gitdir: ${wt}\n`);
		const {json} = hfxJson(['scan', '--db', s.db], {env});
		expect(json.rules).toMatchObject({rules: 'v30', build: '@00704d080000', confidence: 'medium', alternative: null});
		expect(orphanVerdict(json, s.orphan)).toBe(`adoptable from ${s.donor}`);
		// A detached HEAD holds the commit itself.
		fs.writeFileSync(path.join(wt, 'HEAD'), `${SHA_WITHOUT}\n`);
		expect(hfxJson(['scan', '--db', s.db], {env}).json.rules.rules).toBe('v30 before #91543');
	});

	it("a Docker image's .hermes_build_sha, in the install HERMES_INSTALL_DIR names", () => {
		const s = garbageDonorStore(path.join(dir, 'docker'));
		const image = path.join(dir, 'opt-hermes');
		fs.mkdirSync(image);
		fs.writeFileSync(path.join(image, '.hermes_build_sha'), `${SHA_WITHOUT}\n`);
		const {json} = hfxJson(['scan', '--db', s.db], {env: {...env, HERMES_INSTALL_DIR: image}});
		expect(json.rules).toMatchObject({rules: 'v30 before #91543', build: '@f31cf9710000', confidence: 'medium'});
		expect(json.rules.decidedBy).toContain(`${image}/.hermes_build_sha (installed, maybe not running)`);
	});

	it('hostile install files: the build is unknown, said in one phrase; no crash, no hang, nothing written', () => {
		const s = garbageDonorStore(path.join(dir, 'hostile'));
		const install = path.join(s.home, 'hermes-agent');
		const head = path.join(install, '.git/HEAD');
		const cases: Array<[string, () => void, RegExp]> = [
			['a megabyte HEAD', () => fs.writeFileSync(head, 'x'.repeat(1 << 20)), /HEAD is larger than 4096 bytes/],
			[
				'a ref climbing out of .git',
				() => fs.writeFileSync(head, 'ref: refs/../../../../etc/passwd\n'),
				/names no branch git would write/,
			],
			[
				'escapes in HEAD',
				() => fs.writeFileSync(head, `\u001b]52;c;aGk=\u0007\u001b[2J${SHA_WITH}`),
				/resolves to no 40-hex commit/,
			],
			[
				'a FIFO as HEAD',
				() => {
					fs.rmSync(head);
					execFileSync('mkfifo', [head]);
				},
				/HEAD cannot be read as a file/,
			],
			[
				'a pointer to nowhere',
				() => {
					fs.rmSync(path.join(install, '.git'), {recursive: true});
					fs.writeFileSync(path.join(install, '.git'), 'gitdir: /nonexistent/x\n');
				},
				/has no HEAD/,
			],
			[
				'a .hermes_build_sha that is not a commit',
				() => {
					fs.rmSync(path.join(install, '.git'));
					fs.writeFileSync(path.join(install, '.hermes_build_sha'), '\u001b[31mlatest\n');
				},
				/\.hermes_build_sha holds no 40-hex commit/,
			],
		];
		sourceCheckout(install, SHA_WITH);
		for (const [what, plant, why] of cases) {
			plant();
			const before = evidenceState(s.home);
			const {json, code, stderr} = hfxJson(['scan', '--db', s.db], {env});
			expect({what, code, stderr}).toEqual({what, code: 1, stderr: ''});
			expect(json.rules).toMatchObject({build: null, alternative: 'v30 before #91543'});
			expect(json.rules.decidedBy).toMatch(/^the installed build is unknown: /);
			expect(json.rules.decidedBy).toMatch(why);
			const text = hfx(['scan', '--db', s.db], {env});
			expect(text.stdout).not.toMatch(/\u001b/);
			expect(text.stdout).toMatch(/^build unknown \(or v30 before #91543\), weak: the installed build is unknown: /m);
			expect(evidenceState(s.home)).toEqual(before);
		}
	});
});
