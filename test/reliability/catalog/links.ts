/**
 * Issue 29, class 1 (reported under class 2, symlinks): a link planted at any path hfx writes is
 * never written through. One kind per output path: the metrics and watch textfile (a link to a
 * victim, a dangling one, and a link at the temp name the writer used to take, `.<name>.<pid>.tmp`
 * for the very pid hfx runs as), a backup's -o FILE.zip, the backup lock, the default backups/
 * folder, state-snapshots/ and its records file, the records file of an -o folder, the audit head.
 * The victim's folder is evidence: 0 bytes may change there, and each refusal is one line.
 */
import fs from 'node:fs';
import path from 'node:path';
import {home} from '../fixtures.js';
import type {Fault, Scene, Step, TempSpace} from '../types.js';
import {ok, refused, repairWrites} from './kit.js';

const LINK = /symbolic link|a link/i;

/** A victim file outside everything hfx was given, in a folder of its own (evidence). */
function victim(t: TempSpace): {dir: string; file: string} {
	const dir = t.dir('victim');
	const file = path.join(dir, 'passwd');
	fs.writeFileSync(file, 'root:x:0:0::/root:/bin/bash\n');
	return {dir, file};
}

/**
 * A home with a link planted at `at(root, out)` to the victim file (or to `to`); evidence: the home, the victim's
 * folder and the output folder.
 */
async function planted(
	t: TempSpace,
	at: (root: string, out: string) => string,
	steps: (root: string, out: string) => Step[],
	to?: (v: {dir: string; file: string}) => string,
): Promise<Scene> {
	const h = await home(t.dir('home'));
	const out = t.dir('out');
	const v = victim(t);
	const link = at(h.root, out);
	fs.rmSync(link, {recursive: true, force: true});
	const target = to ? to(v) : v.file;
	fs.symlinkSync(target, link);
	return {
		evidence: [h.root, v.dir, out],
		steps: steps(h.root, out),
		after: () => (stillLink(link, target) ? null : `the link at ${link} was replaced or removed`),
	};
}

/** Whether `link` is still the planted link to `target` (never throws: a replaced link is a file now). */
function stillLink(link: string, target: string): boolean {
	return fs.lstatSync(link, {throwIfNoEntry: false})?.isSymbolicLink() === true && fs.readlinkSync(link) === target;
}

const dangling = (v: {dir: string}) => path.join(v.dir, 'nowhere', 'x');
const prom = (out: string) => path.join(out, 'hfx.prom');

export const LINKS: Fault[] = [
	{
		id: 'link-metrics-textfile-victim',
		cls: 2,
		outcome: 'refused',
		notes:
			"the metrics textfile is a link to a victim file (node_exporter's folder " +
			'is group-writable): refused, the victim untouched',
		setup: async t =>
			planted(
				t,
				(_r, out) => prom(out),
				(r, out) => [refused(['metrics', '--home', r, '--textfile', prom(out)], LINK)],
			),
	},
	{
		id: 'link-metrics-textfile-dangling',
		cls: 2,
		outcome: 'refused',
		notes: 'the metrics textfile is a dangling link: refused, its target not created',
		setup: async t =>
			planted(
				t,
				(_r, out) => prom(out),
				(r, out) => [refused(['metrics', '--home', r, '--textfile', prom(out)], LINK)],
				dangling,
			),
	},
	{
		id: 'link-metrics-old-temp-name',
		cls: 2,
		outcome: 'ok',
		notes:
			'a link to a victim at .hfx.prom.<pid>.tmp for the pid hfx runs as (the ' +
			'old predictable temp): the temp is unguessable now, the victim untouched',
		async setup(t) {
			const h = await home(t.dir('home'));
			const out = t.dir('out');
			const v = victim(t);
			// exec keeps the shell's pid: the link names exactly the pid hfx will have.
			const wrap = ['bash', '-c', `ln -s '${v.file}' '${out}'/.hfx.prom.$$.tmp && exec "$@"`, 'plant'];
			return {
				evidence: [h.root, v.dir],
				steps: [ok(['metrics', '--home', h.root, '--textfile', prom(out)], {wrap})],
				after: () => (fs.lstatSync(prom(out), {throwIfNoEntry: false})?.isFile() ? null : 'no textfile written'),
			};
		},
	},
	{
		id: 'link-watch-textfile-victim',
		cls: 2,
		outcome: 'refused',
		notes: 'watch --textfile names a link to a victim file: refused at start, the victim untouched',
		setup: async t =>
			planted(
				t,
				(_r, out) => prom(out),
				(r, out) => [refused(['watch', '--home', r, '--interval', '1s', '--textfile', prom(out)], LINK)],
			),
	},
	{
		id: 'link-backup-o-zip-to-folder',
		cls: 2,
		outcome: 'refused',
		notes: '-o mine.zip is a link to a victim folder: refused, nothing written into the folder',
		setup: async t =>
			planted(
				t,
				(_r, out) => path.join(out, 'mine.zip'),
				(r, out) => [refused(['backup', '--home', r, '-o', path.join(out, 'mine.zip')], LINK)],
				v => v.dir,
			),
	},
	{
		id: 'link-backup-lock',
		cls: 2,
		outcome: 'refused',
		notes:
			"the root's .hfx-backup.lock is a link to a victim file: refused " +
			'(O_EXCL|O_NOFOLLOW), the link neither followed nor removed',
		setup: async t =>
			planted(
				t,
				r => path.join(r, '.hfx-backup.lock'),
				(r, out) => [refused(['backup', '--home', r, '-o', out], LINK)],
			),
	},
	{
		id: 'link-default-backups-folder',
		cls: 2,
		outcome: 'refused',
		notes: "the root's backups/ is a link to a victim folder: the default backup is refused",
		setup: async t =>
			planted(
				t,
				r => path.join(r, 'backups'),
				r => [refused(['backup', '--home', r], LINK)],
				v => v.dir,
			),
	},
	{
		id: 'link-state-snapshots-folder',
		cls: 2,
		outcome: 'refused',
		notes: 'state-snapshots/ is a link to a victim folder: the quick snapshot is refused before anything is written',
		setup: async t =>
			planted(
				t,
				r => path.join(r, 'state-snapshots'),
				r => [refused(['backup', '--quick', '--home', r], LINK)],
				v => v.dir,
			),
	},
	{
		id: 'link-state-snapshots-dangling',
		cls: 2,
		outcome: 'refused',
		notes: 'state-snapshots/ is a dangling link: refused, its target not created',
		setup: async t =>
			planted(
				t,
				r => path.join(r, 'state-snapshots'),
				r => [refused(['backup', '--quick', '--home', r], LINK)],
				dangling,
			),
	},
	{
		id: 'link-state-snapshots-records',
		cls: 2,
		outcome: 'refused',
		notes: 'state-snapshots/hfx-records.jsonl is a link to a victim file: refused, the victim untouched',
		setup: async t =>
			planted(
				t,
				r => path.join(r, 'state-snapshots', 'hfx-records.jsonl'),
				r => [refused(['backup', '--quick', '--home', r], /link/i)],
			),
	},
	{
		id: 'link-records-dangling',
		cls: 2,
		outcome: 'refused',
		notes: "the -o folder's hfx-records.jsonl is a dangling link: refused, its target not created",
		setup: async t =>
			planted(
				t,
				(_r, out) => path.join(out, 'hfx-records.jsonl'),
				(r, out) => [refused(['backup', '--home', r, '-o', out], /link/i)],
				dangling,
			),
	},
	{
		id: 'link-audit-head',
		cls: 2,
		outcome: 'refused',
		notes:
			'hfx-audit.head beside the store is a link to a victim file: `repair ' +
			'--apply --yes` refused, the victim untouched',
		async setup(t) {
			const scene = await planted(
				t,
				r => path.join(r, 'hfx-audit.head'),
				r => [refused(['repair', '--apply', '--yes', '--db', path.join(r, 'state.db')], LINK)],
			);
			return {
				...scene,
				mayWrite: repairWrites(path.join(scene.evidence[0]!, 'state.db')).filter(p => !p.endsWith('hfx-audit.head')),
			};
		},
	},
];
