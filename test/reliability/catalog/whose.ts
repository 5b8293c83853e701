/**
 * Class 5: whose archive. With one -o folder for two homes, `--keep` prunes only the archives of
 * the home being backed up and `gate --home A` never passes on B's archive; two restores within
 * one second keep two separate pre-restore folders (the first's original state.db and .env kept).
 */
import fs from 'node:fs';
import path from 'node:path';
import {archive, home} from '../fixtures.js';
import type {Fault, RunResult} from '../types.js';
import {finding, late, ok, recordsIn, step} from './kit.js';

const zips = (dir: string): string[] =>
	fs
		.readdirSync(dir)
		.filter(n => n.endsWith('.zip'))
		.sort();

export const WHOSE: Fault[] = [
	{
		id: 'keep-two-homes-one-folder',
		cls: 5,
		outcome: 'ok',
		notes: "backup A, then B --keep 1 into the same -o folder: A's archive must stay",
		async setup(t) {
			const a = await home(t.dir('home-a'));
			const b = await home(t.dir('home-b'));
			const out = t.dir('out');
			let aArchive = '';
			return {
				evidence: [a.root, b.root],
				steps: [
					ok(['backup', '--home', a.root, '-o', out], {
						check: () => {
							aArchive = zips(out)[0] ?? '';
							return aArchive ? null : 'no archive of A';
						},
					}),
					ok(['backup', '--home', b.root, '-o', out, '--keep', '1']),
				],
				after: () =>
					aArchive && fs.existsSync(path.join(out, aArchive))
						? null
						: `backing up B with --keep 1 pruned A's archive ${aArchive}`,
			};
		},
	},
	{
		id: 'gate-two-homes-one-folder',
		cls: 5,
		outcome: 'finding',
		notes: 'only B has a verified, drilled archive in the shared folder: gate --home B passes, gate --home A must not',
		async setup(t) {
			const a = await home(t.dir('home-a'));
			const b = await home(t.dir('home-b'));
			const out = t.dir('out');
			return {
				evidence: [a.root, b.root],
				steps: [
					ok(['backup', '--home', b.root, '-o', out]),
					late('ok', () => ['restore', '--drill', path.join(out, zips(out).at(-1) ?? 'none.zip')]),
					ok(['gate', '--home', b.root, '-o', out]),
					finding(['gate', '--home', a.root, '-o', out]),
				],
			};
		},
	},
	{
		id: 'two-restores-one-second',
		cls: 5,
		outcome: 'ok',
		notes:
			'two restores into one home started in the same second: each one that ' +
			'completes keeps its own pre-restore folder with the original state.db ' +
			'and .env',
		async setup(t) {
			const arch = await archive(t.dir('archives'));
			const target = await home(t.dir('target'));
			fs.writeFileSync(path.join(target.root, '.env'), 'ORIGINAL_SECRET=keep-me\n');
			const pre = (): string[] =>
				fs.readdirSync(path.join(target.root, 'backups')).filter(n => n.startsWith('pre-restore-'));
			let done = 0;
			const count = (r: RunResult): null => {
				done += r.code === 0 ? 1 : 0;
				return null;
			};

			const restore = (concurrent: boolean) =>
				step('any', ['restore', arch, '--home', target.root, '--yes'], {concurrent, check: count});
			return {
				evidence: [path.dirname(arch)],
				mayWrite: recordsIn(path.dirname(arch)),
				steps: [restore(true), restore(false)],
				after: () => {
					const dirs = pre();
					if (dirs.length < done) {
						return (
							`${done} restores completed but ${dirs.length} pre-restore folder(s) ` +
							`remain (${dirs.join(', ')}): one overwrote the other's kept copies`
						);
					}

					const env = dirs
						.map(d => path.join(target.root, 'backups', d, '.env'))
						.filter(f => fs.existsSync(f))
						.map(f => fs.readFileSync(f, 'utf8'));
					return done === 0 || env.includes('ORIGINAL_SECRET=keep-me\n')
						? null
						: 'the original .env is in no pre-restore folder';
				},
			};
		},
	},
];
