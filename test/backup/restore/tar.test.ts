/**
 * Restoring plain tar.gz archives made by the system `tar` (issue 15, point 1), on the real binary:
 * a Docker volume snapshot (`tar czf snap.tgz -C / data`), a tarball of ~/.hermes itself, one made
 * from inside (`-C ~/.hermes .`), and a deeper prefix (`var/lib/docker/volumes/hermes/_data/`). The
 * Hermes root is found inside and shown as a mapping; the restored stores hold exactly the home's
 * rows. Refused with nothing written: two roots, a `../` member, a cut-off archive. A volume tarred
 * while its agent ran holds state.db-wal: its committed frames are folded into the restored
 * state.db (the counts prove it), the -wal and -shm are never written, the volume never touched.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {hfx, hfxJson} from '../../helpers/cli.js';
import {folderDigest} from '../../helpers/folder-digest.js';
import {cleanupTemps, counts, dump, killedAgentVolume, makeHome, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

/** `tar czf OUT -C DIR WHAT…` with the system binary; sidecars left out unless `withSidecars`. */
function tarCzf(
	out: string,
	dir: string,
	what: string[],
	options: {withSidecars?: boolean; extra?: string[]} = {},
): void {
	const skip = options.withSidecars ? [] : ['--exclude=*.db-wal', '--exclude=*.db-shm'];
	const r = spawnSync('tar', ['czf', out, ...skip, ...(options.extra ?? []), '-C', dir, ...what], {encoding: 'utf8'});
	expect(r.status, r.stderr).toBe(0);
}

type Restored = {
	code: number | null;
	json: {
		status: string;
		root: string | null;
		mapping: Array<{archive: string; target: string}>;
		databases: Array<{path: string; ok: boolean; counts: Record<string, number>}>;
		folded: Array<{db: string; wal: string; frames: number}>;
		notRestored: {outsideRoot: string[]; sidecars: string[]};
		checked: {members: string; databases: string};
	};
	stderr: string;
};

function restoreTo(archive: string, target: string): Restored {
	return hfxJson(['restore', archive, '--to', target, '--yes']) as Restored;
}

/** The home copied to `parent/rel` (the layout a tar is made of). */
function homeAt(tag: string, rel: string) {
	const home = makeHome(tag);
	const parent = tempDir(`${tag}-parent`);
	fs.cpSync(home.root, path.join(parent, rel), {recursive: true});
	return {home, parent};
}

describe('restore a tar.gz: the layouts operators make', () => {
	const layouts: Array<{
		name: string;
		rel: string;
		tar: (parent: string) => {dir: string; what: string[]};
		root: string;
		prefix: string;
	}> = [
		{
			name: 'a Docker volume snapshot (tar czf snap.tgz -C / data)',
			rel: 'data',
			tar: p => ({dir: p, what: ['data']}),
			root: 'data',
			prefix: 'data/',
		},
		{
			name: 'a tarball of ~/.hermes (tar czf h.tgz -C ~ .hermes)',
			rel: '.hermes',
			tar: p => ({dir: p, what: ['.hermes']}),
			root: '.hermes',
			prefix: '.hermes/',
		},
		{
			name: 'a tarball made from inside (tar czf h.tgz -C ~/.hermes .)',
			rel: 'h',
			tar: p => ({dir: path.join(p, 'h'), what: ['.']}),
			root: '',
			prefix: './',
		},
		{
			name: 'a deeper prefix (var/lib/docker/volumes/hermes/_data/…, the --strip-components layout)',
			rel: 'var/lib/docker/volumes/hermes/_data',
			tar: p => ({dir: p, what: ['var']}),
			root: 'var/lib/docker/volumes/hermes/_data',
			prefix: 'var/lib/docker/volumes/hermes/_data/',
		},
	];

	it.each(layouts)("$name: the root found, the mapping shown, every store restored with the home's rows", layout => {
		const {home, parent} = homeAt(`tar-${layout.rel.replaceAll('/', '-')}`, layout.rel);
		const archive = path.join(tempDir('tar-out'), 'snap.tgz');
		const {dir, what} = layout.tar(parent);
		tarCzf(archive, dir, what);
		const target = path.join(tempDir('tar-target'), 'restored');
		const r = restoreTo(archive, target);
		expect(r.code, r.stderr).toBe(0);
		expect(r.json.status).toBe('restored');
		expect(r.json.root).toBe(layout.root);
		const archived = (rel: string) => (layout.root === '' ? rel : `${layout.root}/${rel}`);
		expect(r.json.mapping).toContainEqual({archive: archived('state.db'), target: path.join(target, 'state.db')});
		expect(r.json.mapping).toContainEqual({
			archive: archived('profiles/work/state.db'),
			target: path.join(target, 'profiles/work/state.db'),
		});
		expect(r.json.mapping.every(m => m.target.startsWith(`${target}${path.sep}`))).toBe(true);
		expect(dump(path.join(target, 'state.db'))).toBe(dump(home.db));
		expect(dump(path.join(target, 'profiles/work/state.db'))).toBe(dump(home.profileDb));
		expect(r.json.databases.find(d => d.path === 'state.db')).toMatchObject({
			ok: true,
			counts: {sessions: home.sessions, messages: home.messages},
		});
		expect(fs.readFileSync(path.join(target, 'config.yaml'), 'utf8')).toBe(
			fs.readFileSync(path.join(home.root, 'config.yaml'), 'utf8'),
		);
		expect(fs.statSync(path.join(target, 'state.db')).mode & 0o777).toBe(0o600);
		// What was checked, in words that claim no manifest.
		expect(r.json.checked.members).toMatch(/size in its tar header/);
		expect(JSON.stringify(r.json.checked)).not.toMatch(/manifest/);

		const text = hfx(['restore', archive, '--to', path.join(tempDir('tar-target2'), 'r'), '--yes']);
		expect(text.code, text.stderr).toBe(0);
		expect(text.stdout).toContain(
			layout.root === ''
				? "layout: the archive's top is the Hermes root"
				: `layout: the Hermes root is ${layout.prefix} in the archive`,
		);
		expect(text.stdout).not.toMatch(/sha256 against the manifest|as in the manifest/);
	});
});

describe('restore a tar.gz: refused, nothing written', () => {
	it('two Hermes roots in one archive: ambiguous, one line, exit 2', () => {
		const parent = tempDir('tar-two');
		fs.cpSync(makeHome('tar-two-a').root, path.join(parent, 'volumes/a'), {recursive: true});
		fs.cpSync(makeHome('tar-two-b').root, path.join(parent, 'volumes/b'), {recursive: true});
		const archive = path.join(tempDir('tar-two-out'), 'two.tgz');
		tarCzf(archive, parent, ['volumes']);
		const target = path.join(tempDir('tar-two-target'), 'restored');
		const r = hfx(['restore', archive, '--to', target, '--yes']);
		expect(r.code).toBe(2);
		expect(r.stderr.trim().split('\n')).toEqual([
			expect.stringMatching(/more than one Hermes root \(volumes\/a\/, volumes\/b\/\).*nothing was written/) as string,
		]);
		expect(fs.existsSync(target)).toBe(false);
	});

	it('an archive with no Hermes root: one line, exit 2', () => {
		const parent = tempDir('tar-none');
		fs.mkdirSync(path.join(parent, 'etc'));
		fs.writeFileSync(path.join(parent, 'etc/hosts'), '127.0.0.1 localhost\n');
		const archive = path.join(tempDir('tar-none-out'), 'none.tgz');
		tarCzf(archive, parent, ['etc']);
		const target = tempDir('tar-none-target');
		const before = folderDigest(target);
		const r = hfx(['restore', archive, '--to', target, '--yes']);
		expect(r.code).toBe(2);
		expect(r.stderr.trim().split('\n')).toEqual([
			expect.stringMatching(/no Hermes root in the archive.*nothing was written/) as string,
		]);
		expect(folderDigest(target)).toEqual(before);
	});

	it('a `../` member (tar -P): refused before anything is written, even beside the target', () => {
		const {parent} = homeAt('tar-evil', 'data');
		const archive = path.join(tempDir('tar-evil-out'), 'evil.tgz');
		tarCzf(archive, parent, ['data'], {extra: ['-P', '--transform=s,^data/SOUL.md,../evil.md,']});
		expect(spawnSync('tar', ['tzf', archive], {encoding: 'utf8'}).stdout).toContain('../evil.md');
		const outer = tempDir('tar-evil-target');
		const target = path.join(outer, 'restored');
		const r = hfx(['restore', archive, '--to', target, '--yes']);
		expect(r.code).toBe(2);
		expect(r.stderr.trim().split('\n')).toEqual([
			expect.stringMatching(/"\.\.\/evil\.md".*\.\..*nothing was written/) as string,
		]);
		expect(fs.readdirSync(outer)).toEqual([]);
	});

	it('a cut-off tar.gz (its gzip trailer and CRC missing): damage, refused, nothing written', () => {
		const {parent} = homeAt('tar-cut', 'data');
		const dir = tempDir('tar-cut-out');
		const whole = path.join(dir, 'whole.tgz');
		tarCzf(whole, parent, ['data']);
		const cut = path.join(dir, 'cut.tgz');
		const bytes = fs.readFileSync(whole);
		fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 100));
		const target = tempDir('tar-cut-target');
		const before = folderDigest(target);
		const r = hfx(['restore', cut, '--to', target, '--yes']);
		expect(r.code).toBe(2);
		expect(r.stderr.trim().split('\n')).toEqual([
			expect.stringMatching(/the archive is damaged.*gzip: unexpected end of file.*nothing was written/) as string,
		]);
		expect(folderDigest(target)).toEqual(before);
		expect(hfx(['verify', cut]).code).toBe(1);
	});
});

describe('restore a tar.gz of a volume tarred while its agent ran (state.db-wal inside)', () => {
	it(
		"folds the -wal's committed frames into the restored state.db: the 40 " +
			'newer messages are there, no -wal or -shm is written, the volume is ' +
			'untouched',
		async () => {
			const {home, parent} = await killedAgentVolume('tar-live');
			const archive = path.join(tempDir('tar-live-out'), 'volume.tgz');
			tarCzf(archive, parent, ['data'], {withSidecars: true});
			expect(spawnSync('tar', ['tzf', archive], {encoding: 'utf8'}).stdout).toMatch(/data\/state\.db-wal/);
			// verify calls it sound, and says what a restore folds (issue #28).
			const verified = hfx(['verify', archive]);
			expect(verified.code).toBe(0);
			expect(verified.stdout).toMatch(
				/note: taken while an agent had data\/state\.db open: its -wal holds \d+ commits? .* that a restore folds/,
			);
			const volume = folderDigest(path.join(parent, 'data'));
			const target = path.join(tempDir('tar-live-target'), 'restored');
			const r = restoreTo(archive, target);
			expect(r.code, r.stderr).toBe(0);
			expect(r.json.folded).toHaveLength(1);
			expect(r.json.folded[0]).toMatchObject({db: 'state.db', wal: 'data/state.db-wal'});
			expect(r.json.folded[0]!.frames).toBeGreaterThan(0);
			expect(r.json.notRestored.sidecars).toEqual(expect.arrayContaining(['data/state.db-wal', 'data/state.db-shm']));
			// Before this test opens it (a reader of a WAL database makes its own -wal and -shm).
			expect(fs.readdirSync(target).filter(n => /-wal$|-shm$|-journal$/.test(n))).toEqual([]);
			expect(counts(path.join(target, 'state.db'))).toEqual({
				sessions: home.sessions + 1,
				messages: home.messages + 40,
			});
			expect(r.json.databases.find(d => d.path === 'state.db')?.counts).toMatchObject({messages: home.messages + 40});
			expect(folderDigest(path.join(parent, 'data'))).toEqual(volume);

			const text = hfx(['restore', archive, '--to', path.join(tempDir('tar-live-target2'), 'r'), '--yes']);
			expect(text.code, text.stderr).toBe(0);
			expect(text.stdout).toMatch(
				new RegExp(
					`data/state\\.db-wal: ${r.json.folded[0]!.frames} committed frames folded into the restored state\\.db`,
				),
			);
			expect(text.stdout).toContain('not restored: data/state.db-shm (a SQLite sidecar: never written as a file)');
			// A drill restores it the same way into a scratch folder and scans the stores.
			const drill = hfxJson<{ok: boolean; exitCode: number; scans: Array<{path: string; sessions: number}>}>([
				'restore',
				'--drill',
				archive,
			]);
			expect(drill.json).toMatchObject({ok: true, exitCode: 0});
			expect(drill.json.scans.find(x => x.path === 'state.db')?.sessions).toBe(home.sessions + 1);
		},
	);

	it(
		'a -wal with no valid frames (its header salt damaged) folds nothing: ' +
			'the restore says so and restores the database file as it is',
		async () => {
			const {home, parent, db} = await killedAgentVolume('tar-stale');
			const wal = fs.readFileSync(`${db}-wal`);
			wal.writeUInt32BE((wal.readUInt32BE(16) ^ 0xff_ff_ff_ff) >>> 0, 16);
			fs.writeFileSync(`${db}-wal`, wal);
			const archive = path.join(tempDir('tar-stale-out'), 'volume.tgz');
			tarCzf(archive, parent, ['data'], {withSidecars: true});
			const target = path.join(tempDir('tar-stale-target'), 'restored');
			const r = restoreTo(archive, target);
			expect(r.code, r.stderr).toBe(0);
			expect(r.json.folded).toEqual([expect.objectContaining({db: 'state.db', frames: 0})]);
			expect(counts(path.join(target, 'state.db')).messages).toBe(home.messages);
			expect(hfx(['restore', archive, '--to', path.join(tempDir('tar-stale-target2'), 'r'), '--yes']).stdout).toContain(
				'data/state.db-wal: no committed frames (nothing to fold into state.db)',
			);
		},
	);

	it(
		'over the home it was taken from (--home): what it brings back said ' +
			'before, the old files kept in pre-restore, the restore recorded in the ' +
			'audit trail',
		async () => {
			const {home, parent} = await killedAgentVolume('tar-over');
			const archive = path.join(tempDir('tar-over-out'), 'volume.tgz');
			tarCzf(archive, parent, ['data'], {withSidecars: true});
			const dry = hfxJson<{
				comparison: Array<{path: string; dropped: {messages: number}; added: {sessions: number; messages: number}}>;
			}>(['restore', archive, '--home', home.root, '--dry-run']);
			expect(dry.code, dry.stderr).toBe(0);
			expect(dry.json.comparison.find(c => c.path === 'state.db')).toMatchObject({
				dropped: {messages: 0},
				added: {sessions: 1, messages: 40},
			});
			const oldDb = dump(home.db);
			const r = hfxJson<{
				status: string;
				preRestoreDir: string | null;
				keptAside: string[];
				audit: Array<{trail: string; seq: number | null}>;
			}>(['restore', archive, '--home', home.root, '--yes']);
			expect(r.code, r.stderr).toBe(0);
			expect(r.json.keptAside).toContain('state.db');
			expect(dump(path.join(r.json.preRestoreDir!, 'state.db'))).toBe(oldDb);
			expect(r.json.audit.find(a => a.trail === path.join(home.root, 'hfx-audit.jsonl'))?.seq).toBeGreaterThan(0);
			expect(counts(home.db).messages).toBe(home.messages + 40);
		},
	);
});
