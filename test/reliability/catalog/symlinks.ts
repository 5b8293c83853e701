/**
 * Class 2: symlinks. A symlinked state.db is read with the -wal and -shm beside its target (the
 * same sessions as its real path); a backup of a home whose state.db or profiles/<name> is a link
 * includes it or says it skipped it (exit 1), never a silent exit 0 without the store; a restore
 * never writes through a symlinked backups/; the audit and records files never follow a planted
 * link; a symlinked sidecar is not called a permission problem.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {archive, crashedHome, crashedStore, home} from '../fixtures.js';
import type {Fault, RunResult} from '../types.js';
import {ok, repairWrites, step, verdict} from './kit.js';

function sessionsOf(r: RunResult): string {
	try {
		const j = JSON.parse(r.stdout) as {sessions: Array<{id: string; messageCount: number}>};
		return JSON.stringify(j.sessions.map(s => [s.id, s.messageCount]));
	} catch {
		return `not JSON: ${r.stdout.slice(0, 80)}`;
	}
}

/** The members of a zip archive, by `unzip -Z1`. */
export function members(zip: string): string[] {
	return spawnSync('unzip', ['-Z1', zip], {encoding: 'utf8'}).stdout.split('\n').filter(Boolean);
}

function archiveIn(out: string): string | null {
	const z = fs.readdirSync(out).find(n => n.endsWith('.zip'));
	return z ? path.join(out, z) : null;
}

/** Exit 0 only with `member` in the archive; exit 1 only when stdout names what was skipped. */
function includedOrSaid(out: string, member: string) {
	return (r: RunResult): string | null => {
		const z = archiveIn(out);
		if (r.code === 0 && !(z && members(z).includes(member))) {
			return `exit 0 but the archive has no ${member} (${
				z
					? 'members: ' +
						members(z)
							.filter(m => m.endsWith('.db'))
							.join(', ')
					: 'no archive'
			})`;
		}

		return r.code === 1 && !/skip|symlink|link/i.test(r.stdout + r.stderr)
			? 'exit 1 without naming what was skipped'
			: null;
	};
}

export const SYMLINKS: Fault[] = [
	{
		id: 'symlinked-state-db-reads-target-wal',
		cls: 2,
		outcome: 'ok',
		notes:
			'state.db a link to a crashed store elsewhere: the link must show the ' +
			"same sessions as the target (its -wal, not the link's folder)",
		async setup(t) {
			const s = await crashedStore(t.dir('real'));
			const linkDir = t.dir('link');
			fs.symlinkSync(s.db, path.join(linkDir, 'state.db'));
			let real = '';
			return {
				evidence: [s.dir, linkDir],
				steps: [
					ok(['sessions', '--db', s.db, '--json', '--limit', '0'], {
						check: r => {
							real = sessionsOf(r);
							return null;
						},
					}),
					ok(['sessions', '--db', path.join(linkDir, 'state.db'), '--json', '--limit', '0'], {
						check: r =>
							sessionsOf(r) === real
								? null
								: `through the link: ${sessionsOf(r).slice(0, 120)}; real path: ${real.slice(0, 120)}`,
					}),
				],
			};
		},
	},
	{
		id: 'backup-symlinked-state-db',
		cls: 2,
		outcome: 'ok',
		needs: ['unzip'],
		notes: "the home's state.db is a link to a store outside it: included, or exit 1 naming it",
		async setup(t) {
			const h = await home(t.dir('home'));
			const elsewhere = t.dir('elsewhere');
			fs.renameSync(h.db, path.join(elsewhere, 'state.db'));
			fs.symlinkSync(path.join(elsewhere, 'state.db'), h.db);
			const out = t.dir('out');
			return {
				evidence: [h.root, elsewhere],
				steps: [verdict(['backup', '--home', h.root, '-o', out], {check: includedOrSaid(out, 'state.db')})],
			};
		},
	},
	{
		id: 'backup-symlinked-profile',
		cls: 2,
		outcome: 'ok',
		needs: ['unzip'],
		notes: 'profiles/work is a link to a folder outside the home: included, or exit 1 naming it',
		async setup(t) {
			const h = await home(t.dir('home'));
			const elsewhere = path.join(t.dir('elsewhere'), 'work');
			fs.renameSync(path.join(h.root, 'profiles/work'), elsewhere);
			fs.symlinkSync(elsewhere, path.join(h.root, 'profiles/work'));
			const out = t.dir('out');
			return {
				evidence: [h.root, elsewhere],
				steps: [
					verdict(['backup', '--home', h.root, '-o', out], {check: includedOrSaid(out, 'profiles/work/state.db')}),
				],
			};
		},
	},
	{
		id: 'restore-through-symlinked-backups',
		cls: 2,
		outcome: 'ok',
		notes: "the target home's backups/ is a link outside it: no pre-restore copy (credentials) written through it",
		async setup(t) {
			const a = await archive(t.dir('archives'));
			const target = await home(t.dir('target'));
			const outside = t.dir('outside');
			fs.rmSync(path.join(target.root, 'backups'), {recursive: true});
			fs.symlinkSync(outside, path.join(target.root, 'backups'));
			return {
				evidence: [outside, path.dirname(a)],
				steps: [step('any', ['restore', a, '--home', target.root, '--yes'])],
			};
		},
	},
	{
		id: 'audit-file-planted-link',
		cls: 2,
		outcome: 'ok',
		notes:
			'hfx-audit.jsonl beside the store is a link to a victim file: `repair ' +
			'--apply --yes` must not append to the victim',
		async setup(t) {
			const h = await home(t.dir('home'));
			const victim = path.join(t.dir('victim'), 'passwd');
			fs.writeFileSync(victim, 'root:x:0:0::/root:/bin/bash\n');
			fs.symlinkSync(victim, path.join(h.root, 'hfx-audit.jsonl'));
			return {
				evidence: [h.root, path.dirname(victim)],
				mayWrite: [...repairWrites(h.db).filter(p => !p.endsWith('hfx-audit.jsonl'))],
				steps: [step('any', ['repair', '--apply', '--yes', '--db', h.db])],
			};
		},
	},
	{
		id: 'records-file-planted-link',
		cls: 2,
		outcome: 'ok',
		notes: 'hfx-records.jsonl in the -o folder is a link to a victim file: the backup must not append to the victim',
		async setup(t) {
			const h = await home(t.dir('home'));
			const out = t.dir('out');
			const victim = path.join(t.dir('victim'), 'shadow');
			fs.writeFileSync(victim, 'root:*:19000:0:99999:7:::\n');
			fs.symlinkSync(victim, path.join(out, 'hfx-records.jsonl'));
			return {evidence: [h.root, path.dirname(victim)], steps: [step('any', ['backup', '--home', h.root, '-o', out])]};
		},
	},
	{
		id: 'symlinked-wal-not-permissions',
		cls: 2,
		outcome: 'finding',
		notes: 'state.db-wal is a link to a copy elsewhere: said as a link, not "permission denied"',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			const elsewhere = t.dir('elsewhere');
			fs.renameSync(`${s.db}-wal`, path.join(elsewhere, 'state.db-wal'));
			fs.symlinkSync(path.join(elsewhere, 'state.db-wal'), `${s.db}-wal`);
			return {
				evidence: [s.dir, elsewhere],
				steps: [
					step('any', ['scan', '--db', s.db], {notMatch: /permission/i}),
					step('any', ['files', '--db', s.db], {notMatch: /permission/i}),
				],
			};
		},
	},
	{
		id: 'dangling-wal-link',
		cls: 2,
		outcome: 'refused',
		notes:
			"state.db-wal is a link to nowhere beside a crashed store's main file: " +
			'said as a dangling link (refused or a finding), never silently read as ' +
			'"no WAL"',
		async setup(t) {
			const s = await crashedStore(t.dir('store'));
			fs.rmSync(`${s.db}-wal`);
			fs.symlinkSync('/nonexistent/state.db-wal', `${s.db}-wal`);
			return {
				evidence: [s.dir],
				steps: [
					step('unsound', ['scan', '--db', s.db], {match: /link/i, notMatch: /permission/i}),
					step('unsound', ['files', '--db', s.db], {match: /link/i, notMatch: /permission/i}),
				],
			};
		},
	},
	{
		id: 'backup-quick-crashed-symlinked-home',
		cls: 2,
		outcome: 'ok',
		notes: 'the home itself reached through a symlink, crashed store: quick snapshot writes only state-snapshots/',
		async setup(t) {
			const h = await crashedHome(t.dir('home'));
			const link = path.join(t.dir('link'), 'hermes');
			fs.symlinkSync(h.root, link);
			return {
				evidence: [h.root],
				steps: [ok(['backup', '--quick', '--home', link])],
				mayWrite: [`${path.join(h.root, 'state-snapshots')}/`],
			};
		},
	},
];
