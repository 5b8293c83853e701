/**
 * The refusals before a restore writes anything (source/backup/restore/refusals.ts): unsafe member
 * names, a damaged archive, a target written through a link or over a folder, a process holding
 * what would be replaced, and the typed confirmation. Real archives, real folders and links, a real
 * second process; every refusal exit 2 with "nothing was written".
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {
	assertNoHolders,
	confirmReplace,
	planTargets,
	refuse,
	refuseDamaged,
	refuseLinkedBackups,
	refuseLinksSincePlanned,
	refuseUnsafeMembers,
} from '../../../source/backup/restore/refusals.js';
import type {SourceMember} from '../../../source/backup/restore/types.js';
import {type DbReport, type ReportBase, finish, noStoreProblems} from '../../../source/backup/verify/report.js';
import {FailClosed} from '../../../source/ground/errors.js';
import {T0} from '../../fixtures/scenarios.js';
import {WriterProcess} from '../../helpers/writer.js';
import {cleanupTemps, craftZip, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

/** The refusal `fn` throws (sync or async), or fails the test. */
async function refusal(fn: () => unknown): Promise<FailClosed> {
	try {
		await fn();
	} catch (error) {
		expect(error).toBeInstanceOf(FailClosed);
		const e = error as FailClosed;
		expect(e.exitCode).toBe(2);
		expect(e.reason).toMatch(/; nothing was written$/);
		return e;
	}

	throw new Error('no refusal');
}

function member(rel: string, kind: 'file' | 'db' = 'file'): SourceMember {
	return {path: rel, archivePath: rel, size: 1, mode: 0o644, sha256: null, crc32: null, kind};
}

describe('refuse', () => {
	it('is a FailClosed, exit 2, whose reason says nothing was written', () => {
		expect(refuse('/f', 'in-use', 'held', 'stop it').toJSON()).toEqual({
			file: '/f',
			kind: 'in-use',
			reason: 'held; nothing was written',
			next: 'stop it',
		});
	});
});

describe('refuseUnsafeMembers', () => {
	it('names the first member the policy refuses, and how many more', async () => {
		const dir = tempDir('ref-unsafe');
		const file = path.join(dir, 'a.zip');
		const data = Buffer.from('x');
		fs.writeFileSync(
			file,
			craftZip([
				{name: 'state.db', data},
				{name: '../up', data},
				{name: '/abs', data},
			]),
		);
		const e = await refusal(() => refuseUnsafeMembers(file));
		expect(e.kind).toBe('unsafe-member');
		expect(e.file).toBe(file);
		expect(e.reason).toMatch(
			/^member "\.\.\/up" is refused: .+ \(\+1 more: hfx verify lists them\); nothing was written$/,
		);
		expect(e.next).toBe('do not extract this archive; take it apart by hand only in a scratch folder');
	});

	it('lets a safe zip through, and a file that is no zip (the verify says what it is)', async () => {
		const dir = tempDir('ref-safe');
		fs.writeFileSync(path.join(dir, 'a.zip'), craftZip([{name: 'state.db', data: Buffer.from('x')}]));
		await expect(refuseUnsafeMembers(path.join(dir, 'a.zip'))).resolves.toBeUndefined();
		fs.writeFileSync(path.join(dir, 'b.zip'), 'no zip');
		await expect(refuseUnsafeMembers(path.join(dir, 'b.zip'))).resolves.toBeUndefined();
	});
});

describe('refuseDamaged', () => {
	const report = (problems: ReportBase['problems'], databases: DbReport[] = [], unreadable = false) =>
		finish(
			{
				path: '/a',
				kind: 'zip',
				manifest: null,
				sealed: false,
				seal: null,
				members: 1,
				bytes: 1,
				problems,
				databases,
				notes: [],
			},
			0,
			unreadable,
		);
	const badDb = {path: 'state.db', ok: false, problems: ['integrity_check: page 3 broken']} as DbReport;
	const crc = {where: 'member "a"', what: 'CRC-32 mismatch'};

	it('a sound report passes', () => {
		expect(() => refuseDamaged('/a.zip', report([]))).not.toThrow();
	});

	it('an archive with no store is no-hermes-root; damage is archive-damaged with the first problem', async () => {
		expect((await refusal(() => refuseDamaged('/a.zip', report(noStoreProblems([]))))).kind).toBe('no-hermes-root');
		const e = await refusal(() => refuseDamaged('/a.zip', report([crc], [badDb])));
		expect(e.kind).toBe('archive-damaged');
		expect(e.reason).toBe(
			'the archive is damaged (2 problems; first: member "a": CRC-32 mismatch); nothing was written',
		);
		expect(e.next).toBe('run hfx verify /a.zip for the full list, and restore from another backup (hfx backups)');
		const db = await refusal(() => refuseDamaged('/a.zip', report([], [badDb])));
		expect(db.reason).toContain('(1 problem; first: state.db: integrity_check: page 3 broken)');
	});

	it('an unreadable archive is damaged even when it also has no store; tolerated problems do not count', async () => {
		const e = await refusal(() => refuseDamaged('/a.zip', report(noStoreProblems([]), [], true)));
		expect(e.kind).toBe('archive-damaged');
		expect(e.reason).toMatch(/^the archive is unreadable /);
		const sidecar = {where: 'member #2 "state.db-wal"', what: 'a sidecar', sidecar: true};
		expect(() => refuseDamaged('/a.tar', report([sidecar]), p => p.sidecar === true)).not.toThrow();
		expect(() => refuseDamaged('/a.tar', report([sidecar]))).toThrow(FailClosed);
	});
});

describe('planTargets', () => {
	it('maps each member under the target and says which exist already', () => {
		const target = tempDir('plan');
		fs.writeFileSync(path.join(target, 'config.yaml'), 'old');
		const plan = planTargets('/a.zip', target, [member('config.yaml'), member('profiles/w/state.db', 'db')]);
		expect(plan.map(p => [p.m.path, p.dest, p.exists])).toEqual([
			['config.yaml', path.join(target, 'config.yaml'), true],
			['profiles/w/state.db', path.join(target, 'profiles/w/state.db'), false],
		]);
	});

	it('refuses a target that is a file, a member landing outside it, a link on the way, a folder in place', async () => {
		const target = tempDir('plan-bad');
		fs.writeFileSync(path.join(target, 'file'), '');
		expect((await refusal(() => planTargets('/a.zip', path.join(target, 'file'), []))).kind).toBe('not-a-folder');
		const outside = await refusal(() => planTargets('/a.zip', target, [member('../escape')]));
		expect([outside.kind, outside.file]).toEqual(['unsafe-member', '/a.zip']);
		expect(outside.reason).toBe('member "../escape" would land outside the target; nothing was written');
		fs.symlinkSync(tempDir('plan-elsewhere'), path.join(target, 'profiles'));
		const link = await refusal(() => planTargets('/a.zip', target, [member('profiles/w/state.db')]));
		expect([link.kind, link.file]).toEqual(['symlink-in-target', path.join(target, 'profiles')]);
		fs.mkdirSync(path.join(target, 'state.db'));
		const folder = await refusal(() => planTargets('/a.zip', target, [member('state.db', 'db')]));
		expect([folder.kind, folder.file]).toEqual(['target-is-folder', path.join(target, 'state.db')]);
		expect(folder.reason).toBe('a folder stands where the archive has the file state.db; nothing was written');
	});
});

describe('refuseLinkedBackups and refuseLinksSincePlanned', () => {
	it('backups/ as a link or a file is refused; absent or a real folder passes', async () => {
		const target = tempDir('backups');
		expect(() => refuseLinkedBackups(target)).not.toThrow();
		fs.mkdirSync(path.join(target, 'backups'));
		expect(() => refuseLinkedBackups(target)).not.toThrow();
		fs.rmdirSync(path.join(target, 'backups'));
		fs.symlinkSync(tempDir('backups-elsewhere'), path.join(target, 'backups'));
		const link = await refusal(() => refuseLinkedBackups(target));
		expect([link.kind, link.file]).toEqual(['symlink-in-target', path.join(target, 'backups')]);
		expect(link.reason).toContain('through this symbolic link');
		fs.rmSync(path.join(target, 'backups'));
		fs.writeFileSync(path.join(target, 'backups'), '');
		expect((await refusal(() => refuseLinkedBackups(target))).reason).toContain('through this, which is not a folder');
	});

	it('a folder on the way that became a link since it was planned', async () => {
		const target = tempDir('since');
		fs.mkdirSync(path.join(target, 'memories'));
		const plan = planTargets('/a.zip', target, [member('memories/MEMORY.md')]);
		expect(() => refuseLinksSincePlanned(target, plan)).not.toThrow();
		fs.rmdirSync(path.join(target, 'memories'));
		fs.symlinkSync('/tmp', path.join(target, 'memories'));
		const e = await refusal(() => refuseLinksSincePlanned(target, plan));
		expect([e.kind, e.file]).toEqual(['symlink-in-target', path.join(target, 'memories')]);
		expect(e.reason).toBe('this became a symbolic link while the restore was staging its files; nothing was written');
	});
});

describe('assertNoHolders', () => {
	it('refuses a store a second process holds, and a gateway.pid naming a running process', async () => {
		const target = tempDir('holders');
		const w = new WriterProcess(path.join(target, 'state.db'));
		try {
			await w.started();
			await w.create({source: 'cli', startedAt: T0});
			const held = await refusal(() => assertNoHolders(target, ['state.db']));
			expect([held.kind, held.file]).toEqual(['in-use', path.join(target, 'state.db')]);
			expect(held.reason).toContain(String(w.pid));
			fs.writeFileSync(path.join(target, 'gateway.pid'), `${w.pid}\n`);
			const gateway = await refusal(() => assertNoHolders(target, ['profiles/w/state.db']));
			expect([gateway.kind, gateway.file]).toEqual(['gateway-running', path.join(target, 'gateway.pid')]);
			expect(gateway.reason).toBe(`process ${w.pid} named in it is running; nothing was written`);
		} finally {
			await w.kill();
		}
	});

	it('a pid file naming a dead process or this one passes; one that cannot be read (a FIFO) is refused', async () => {
		const target = tempDir('pidfile');
		fs.writeFileSync(path.join(target, 'gateway.pid'), '999999999\n');
		fs.writeFileSync(path.join(target, 'cron.pid'), `${process.pid}\n`);
		expect(() => assertNoHolders(target, [])).not.toThrow();
		fs.rmSync(path.join(target, 'cron.pid'));
		expect(spawnSync('mkfifo', [path.join(target, 'cron.pid')]).status).toBe(0);
		const e = await refusal(() => assertNoHolders(target, []));
		expect([e.kind, e.file]).toEqual(['gateway-running', path.join(target, 'cron.pid')]);
		expect(e.reason).toMatch(/^it cannot be read \(.*FIFO.*\), so whether the gateway runs cannot be told/);
	});
});

describe('confirmReplace', () => {
	it('asks nothing when nothing is replaced and the target is empty', async () => {
		const target = tempDir('confirm-empty');
		const plan = planTargets('/a.zip', target, [member('state.db', 'db')]);
		await expect(confirmReplace('/a.zip', target, plan, {})).resolves.toBeUndefined();
	});

	it('without --yes: refused with no way to ask, refused when not confirmed, on when typed', async () => {
		const target = tempDir('confirm');
		fs.writeFileSync(path.join(target, 'state.db'), 'old');
		const plan = planTargets('/a.zip', target, [member('state.db', 'db')]);
		const none = await refusal(() => confirmReplace('/x/a.zip', target, plan, {}));
		expect([none.kind, none.reason]).toEqual([
			'needs-confirmation',
			'1 existing file would be replaced and no confirmation was given; nothing was written',
		]);
		const asked: string[] = [];
		const no = await refusal(() =>
			confirmReplace('/x/a.zip', target, plan, {
				async confirm(q) {
					asked.push(q);
					return false;
				},
				drops: ['drops 3 sessions'],
			}),
		);
		expect(no.kind).toBe('not-confirmed');
		expect(asked[0]).toBe(
			`restore a.zip over ${target}:\n  drops 3 sessions\n  1 existing file will be replaced; the current ones are ` +
				`kept in a new folder ${path.join(target, 'backups', 'pre-restore-<UTC time of the write>')} (named when ` +
				'done). Type "restore" to go on: ',
		);
		await expect(confirmReplace('/x/a.zip', target, plan, {confirm: async () => true})).resolves.toBeUndefined();
		await expect(confirmReplace('/x/a.zip', target, plan, {yes: true})).resolves.toBeUndefined();
	});

	it('a target that is not empty asks even when no file is replaced', async () => {
		const target = tempDir('confirm-occupied');
		fs.writeFileSync(path.join(target, 'other'), '');
		const plan = planTargets('/a.zip', target, [member('state.db', 'db')]);
		expect((await refusal(() => confirmReplace('/a.zip', target, plan, {}))).kind).toBe('needs-confirmation');
	});
});
