/**
 * The one member policy (source/backup/archive/member-policy.ts) that zip and tar, verify and restore all
 * use: every unsafe name and type refused with its reason, clashes and sidecars found whatever
 * the members' order, and an ordinary Hermes home's names accepted.
 */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {
	type MemberFacts,
	judgeMembers,
	normalizeName,
	refusalReason,
	sidecarSuffix,
} from '../../../source/backup/archive/member-policy.js';
import {prng} from '../../helpers/prng.js';

const file = (name: string, extra: Partial<MemberFacts> = {}): MemberFacts => ({name, type: 'file', size: 1, ...extra});

describe('one member on its own', () => {
	const refused: Array<[string, MemberFacts, RegExp]> = [
		['zip-slip', file('../x'), /"\.\." path segment/],
		['nested zip-slip', file('skills/../../x'), /"\.\." path segment/],
		['absolute', file('/etc/passwd'), /absolute path/],
		['drive letter', file('C:evil'), /absolute path/],
		['backslash', file('skills\\..\\x'), /backslash/],
		['NUL', file('state.db\0.txt'), /NUL byte/],
		['newline', file('a\nb'), /control character/],
		['empty', file(''), /empty name/],
		['only dots and slashes', file('././/'), /empty name/],
		[
			'symlink to /etc/shadow',
			file('state.db', {type: 'symlink', linkTarget: '/etc/shadow'}),
			/symbolic link to "\/etc\/shadow"/,
		],
		['relative symlink', file('memories', {type: 'symlink', linkTarget: 'skills'}), /symbolic link/],
		['hardlink', file('x', {type: 'hardlink', linkTarget: 'state.db'}), /hard link to "state\.db"/],
		['device', file('dev', {type: 'device'}), /device member/],
		['fifo', file('pipe', {type: 'fifo'}), /fifo member/],
		['socket', file('sock', {type: 'socket'}), /socket member/],
		['unknown type', file('sparse', {type: 'other'}), /unsupported type/],
		['negative size', file('x', {size: -1}), /impossible size/],
	];
	it.each(refused)('refuses %s', (_label, m, why) => {
		expect(refusalReason(m)).toMatch(why);
		const findings = judgeMembers([file('config.yaml'), m]);
		expect(findings).toHaveLength(1);
		expect(findings[0]).toMatchObject({index: 1, kind: 'refused'});
		expect(findings[0]!.what).toMatch(why);
	});

	it('accepts the names of an ordinary home, "./" prefixes and folders', () => {
		const names = [
			'./',
			'./state.db',
			'./config.yaml',
			'./profiles/work/state.db',
			'skills/greet/SKILL.md',
			'.env',
			'memories/',
			'state.db.retired-wal-1',
			'notes-journal',
			'manifest.json',
		];
		const members = names.map(n => (n.endsWith('/') ? {name: n, type: 'dir' as const} : file(n)));
		expect(judgeMembers(members)).toEqual([]);
		expect(normalizeName('./a//b/./c/')).toBe('a/b/c');
	});
});

describe('the members together', () => {
	it('finds a repeated name, names that land on one path, and a file where a folder is needed', () => {
		const members = [
			file('state.db'),
			file('config.yaml'),
			file('state.db'),
			file('./config.yaml'),
			file('SOUL.md'),
			file('soul.md'),
			file('caf\u00E9'),
			file('cafe\u0301'),
			file('skills'),
			file('skills/greet/SKILL.md'),
			file('a//b/'),
			file('a/b'),
		];
		const f = judgeMembers(members);
		expect(f.map(x => [x.index, x.kind])).toEqual([
			[2, 'duplicate'],
			[3, 'collision'],
			[9, 'collision'],
			[11, 'collision'],
		]);
		expect(f[2]!.what).toMatch(/needs the folder "skills"/);
		// For a case- or normalization-insensitive target, letter case and Unicode forms clash too.
		expect(judgeMembers(members, {fold: true}).map(x => x.index)).toEqual([2, 3, 5, 7, 9, 11]);
	});

	it('a folder named twice is not a clash', () => {
		expect(judgeMembers([{name: 'a/', type: 'dir'}, {name: './a', type: 'dir'}, file('a/b')])).toEqual([]);
	});

	it('finds every sidecar, before or after its database, and beside any member', () => {
		for (const order of [
			['state.db-wal', 'state.db'],
			['state.db', 'state.db-wal'],
		]) {
			const f = judgeMembers(order.map(n => file(n)));
			expect(f).toHaveLength(1);
			expect(f[0]).toMatchObject({name: 'state.db-wal', kind: 'sidecar'});
		}

		const f = judgeMembers([
			file('profiles/work/state.db-shm'),
			file('kanban.sqlite-journal'),
			file('data-wal'),
			file('data'),
			file('notes-journal'),
		]);
		expect(f.map(x => x.name)).toEqual(['profiles/work/state.db-shm', 'kanban.sqlite-journal', 'data-wal']);
		expect(sidecarSuffix('state.db-wal', new Set())).toBe('-wal');
		expect(sidecarSuffix('notes-journal', new Set())).toBeNull();
	});

	it('gives the same verdict for every order of the members', () => {
		const members = [
			file('state.db'),
			file('state.db-wal'),
			file('../x'),
			file('a'),
			file('./a'),
			file('config.yaml'),
			file('l', {type: 'symlink'}),
		];
		const key = (ms: MemberFacts[]) =>
			judgeMembers(ms)
				.map(f => `${f.kind}`)
				.sort()
				.join(',');
		const want = key(members);
		expect(want).toBe('collision,refused,refused,sidecar');
		let seed = 7;
		for (let round = 0; round < 50; round++) {
			const shuffled = [...members];
			for (let i = shuffled.length - 1; i > 0; i--) {
				seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
				const j = seed % (i + 1);
				[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
			}

			expect(key(shuffled)).toBe(want);
		}
	});
});

describe('fuzzed names (fixed seed): whatever the policy accepts lands inside the target', () => {
	it(
		'20,000 names built from hostile pieces: accepted ones stay inside, are ' +
			'relative, and carry no "..", NUL, backslash or control byte',
		() => {
			const pieces = [
				'..',
				'.',
				'',
				'a',
				'state.db',
				'-wal',
				'/',
				'//',
				'\\',
				'C:',
				'\0',
				'\n',
				'\u001B[2J',
				'caf\u00E9',
				'~',
				' ',
				'...',
				'.env',
			];
			const random = prng(17);
			const target = '/srv/target';
			let accepted = 0;
			for (let i = 0; i < 20_000; i++) {
				const n = 1 + Math.floor(random() * 6);
				const name = Array.from({length: n}, () => pieces[Math.floor(random() * pieces.length)]!).join(
					random() < 0.5 ? '/' : '',
				);
				if (refusalReason({name, type: 'file', size: 0}) !== null) {
					continue;
				}

				accepted++;
				const dest = path.posix.join(target, normalizeName(name));
				expect(dest.startsWith(`${target}/`), name).toBe(true);
				expect(path.posix.relative(target, dest).split('/'), name).not.toContain('..');
				expect(/[\0-\u001F\\]/.test(name), name).toBe(false);
			}

			expect(accepted).toBeGreaterThan(1000);
		},
	);
});
