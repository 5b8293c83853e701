/**
 * Class 4: archives. One member policy for zip and tar, in verify and restore alike: a tar.gz
 * holding ../, absolute, device, hardlink or symlink members, or whose only state.db is a link to
 * /etc/shadow, is never SOUND (exit 1 or 2) and restore writes nothing (a tar's state.db-wal is a
 * finding too, and restore folds its frames, never writing it); a zip listing
 * state.db-wal before state.db, or state.db twice, is a finding and never a stack trace. And what
 * holds (class 9): zip-slip, absolute, symlink and device zip members refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import {craftZip, type CraftEntry} from '../../backup/helpers.js';
import {craftTar, type TarMember} from '../craft-tar.js';
import {crashedStore, home} from '../fixtures.js';
import type {Fault, FaultClass, TempSpace} from '../types.js';
import {recordsIn, refused, step} from './kit.js';

type Real = {db: Buffer; wal: Buffer};

async function realBytes(t: TempSpace): Promise<Real> {
	const h = await home(t.dir('src'));
	const c = await crashedStore(t.dir('crashed'));
	return {db: fs.readFileSync(h.db), wal: fs.readFileSync(`${c.db}-wal`)};
}

/** verify must not call it sound; restore must refuse and write nothing beside or inside the target. */
function hostile(id: string, cls: FaultClass, notes: string, make: (dir: string, real: Real) => string): Fault {
	return {
		id,
		cls,
		outcome: 'refused',
		notes,
		async setup(t) {
			const real = await realBytes(t);
			const dir = t.dir('archives');
			const a = make(dir, real);
			const parent = t.dir('restore-parent');
			const target = path.join(parent, 'home');
			return {
				evidence: [dir, parent],
				steps: [
					step('unsound', ['verify', a], {notMatch: /\bSOUND\b/}),
					refused(['restore', a, '--to', target, '--yes'], /^hfx: .*Next: /),
				],
				after: escapedAbsolute,
				mayWrite: recordsIn(dir),
			};
		},
	};
}

/**
 * A tar.gz holding state.db and a state.db-wal (a volume tarred while its agent ran): verify calls
 * it sound with a note (issue #28: the -wal's commits a restore folds); restore never writes it as a
 * file: it folds the -wal's committed frames into the restored database (backup/restore/source-tar.ts) and says so.
 */
function sidecarTar(): Fault {
	return {
		id: 'tar-sidecar-with-db',
		cls: 4,
		outcome: 'ok',
		notes:
			'a tar.gz holding state.db and a state.db-wal: sound with a note, the ' +
			'sidecar never restored as a file (its frames folded into the restored ' +
			'database)',
		async setup(t) {
			const real = await realBytes(t);
			const dir = t.dir('archives');
			const a = craftTar(path.join(dir, 'home.tar.gz'), [
				{name: 'state.db', data: real.db},
				{name: 'state.db-wal', data: real.wal},
			]);
			const parent = t.dir('restore-parent');
			const target = path.join(parent, 'home');
			const noSidecar = (): string | null =>
				['-wal', '-shm'].some(s => fs.existsSync(path.join(target, `state.db${s}`)))
					? 'a sidecar was written beside the restored state.db'
					: null;
			return {
				evidence: [dir, parent],
				steps: [
					step('ok', ['verify', a], {
						match: /^✓ SOUND[\s\S]*its -wal holds \d+ commits?[\s\S]*never restored as files/,
					}),
					step('ok', ['restore', a, '--to', target, '--yes'], {
						match: /state\.db-wal: (\d+ committed frames? folded into the restored state\.db|no committed frames)/,
						check: noSidecar,
					}),
				],
				mayWrite: [...recordsIn(dir), `${target}/`],
			};
		},
	};
}

const ABS = '/tmp/hfx-rel-abs-escaped';

function escapedAbsolute(): string | null {
	if (!fs.existsSync(ABS)) {
		return null;
	}

	fs.rmSync(ABS, {force: true});
	return `an absolute member was written to ${ABS}`;
}

const tar =
	(members: (r: Real) => TarMember[]) =>
	(dir: string, r: Real): string =>
		craftTar(path.join(dir, 'home.tar.gz'), members(r));
const zip =
	(entries: (r: Real) => CraftEntry[]) =>
	(dir: string, r: Real): string => {
		const file = path.join(dir, 'hfx-backup-2026-01-01T000000Z.zip');
		fs.writeFileSync(file, craftZip(entries(r)));
		return file;
	};

export const ARCHIVES: Fault[] = [
	hostile(
		'tar-dotdot-member',
		4,
		'a tar.gz with ../escaped beside a real state.db',
		tar(r => [
			{name: 'state.db', data: r.db},
			{name: '../escaped', data: Buffer.from('x')},
		]),
	),
	hostile(
		'tar-absolute-member',
		4,
		'a tar.gz with /tmp/hfx-abs-escaped',
		tar(r => [
			{name: 'state.db', data: r.db},
			{name: ABS, data: Buffer.from('x')},
		]),
	),
	hostile(
		'tar-device-member',
		4,
		'a tar.gz with a character device member',
		tar(r => [
			{name: 'state.db', data: r.db},
			{name: 'dev-null', type: 'chardev'},
		]),
	),
	hostile(
		'tar-hardlink-member',
		4,
		'a tar.gz with a hardlink to /etc/passwd',
		tar(r => [
			{name: 'state.db', data: r.db},
			{name: 'passwd', type: 'hardlink', link: '/etc/passwd'},
		]),
	),
	hostile(
		'tar-symlink-member',
		4,
		'a tar.gz with a symlink member pointing outside',
		tar(r => [
			{name: 'state.db', data: r.db},
			{name: 'config.yaml', type: 'symlink', link: '/etc/hostname'},
		]),
	),
	hostile(
		'tar-only-db-symlink-to-shadow',
		4,
		'a tar.gz whose only state.db is a symlink to /etc/shadow',
		tar(() => [{name: 'state.db', type: 'symlink', link: '/etc/shadow'}]),
	),
	hostile(
		'tar-fifo-member',
		4,
		'a tar.gz with a FIFO member',
		tar(r => [
			{name: 'state.db', data: r.db},
			{name: 'pipe', type: 'fifo'},
		]),
	),
	hostile(
		'zip-sidecar-before-db',
		4,
		'a zip listing state.db-wal before state.db (a sidecar over a database)',
		zip(r => [
			{name: 'state.db-wal', data: r.wal},
			{name: 'state.db', data: r.db},
		]),
	),
	hostile(
		'zip-duplicate-db',
		4,
		'a zip with state.db twice (different bytes)',
		zip(r => [
			{name: 'state.db', data: r.db},
			{name: 'state.db', data: r.db.subarray(0, 4096)},
		]),
	),
	sidecarTar(),
	hostile(
		'zip-dotdot-member',
		9,
		'zip-slip ../escaped (holds)',
		zip(r => [
			{name: 'state.db', data: r.db},
			{name: '../escaped', data: Buffer.from('x')},
		]),
	),
	hostile(
		'zip-absolute-member',
		9,
		'an absolute zip member (holds)',
		zip(r => [
			{name: 'state.db', data: r.db},
			{name: ABS, data: Buffer.from('x')},
		]),
	),
	hostile(
		'zip-symlink-member',
		9,
		'a symlink zip member (holds)',
		zip(r => [
			{name: 'state.db', data: r.db},
			{name: 'link', data: Buffer.from('/etc/shadow'), mode: 0o120777},
		]),
	),
	hostile(
		'zip-device-member',
		9,
		'a device zip member (holds)',
		zip(r => [
			{name: 'state.db', data: r.db},
			{name: 'dev', data: Buffer.alloc(0), mode: 0o020644},
		]),
	),
];
