/**
 * Issue #27 point 4, the container recipe and the cron line, as far as a machine without a Docker
 * daemon allows: contrib/docker's Dockerfile and compose snippet have the structure the README
 * promises (hfx as the entrypoint, not root, Hermes' volume mounted read-only, the textfile on a
 * volume of its own that node_exporter reads), and the exact command line the container runs is
 * run on a read-only bind mount of a Hermes root (what the container sees), a live agent writing one
 * of its stores through the writable path meanwhile: every store is read, the textfile and the
 * events say its findings, and not one byte of the root changes. The cron line of contrib/cron is
 * the README's, and runs as written. Fleet tier: the bind mount needs root (as .ci/run runs it).
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {parse} from 'yaml';
import {T0} from '../fixtures/scenarios.js';
import {hfx} from '../helpers/cli.js';
import {folderHashes} from '../helpers/folder-hashes.js';
import {parseExposition, sampleOf} from '../helpers/prometheus.js';
import {WatchProcess} from '../helpers/watch-process.js';
import {ROOT, WriterProcess} from '../helpers/writer.js';

const DOCKER = path.join(ROOT, 'contrib/docker');
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-container-'));
const mounted: string[] = [];
let writer: WriterProcess | null = null;

afterAll(async () => {
	await writer?.kill();
	for (const m of mounted) {
		spawnSync('umount', [m]);
	}

	fs.rmSync(dir, {recursive: true, force: true});
}, 30_000);

/** The Dockerfile's instructions (comments and blank lines dropped), as [INSTRUCTION, rest]. */
function instructions(): Array<[string, string]> {
	return fs
		.readFileSync(path.join(DOCKER, 'Dockerfile'), 'utf8')
		.split('\n')
		.filter(l => l.trim() !== '' && !l.startsWith('#'))
		.map(l => {
			const [word, ...rest] = l.split(' ');
			return [word!, rest.join(' ')];
		});
}

/** ENTRYPOINT and CMD in exec form (JSON arrays): the command line the container runs. */
function containerCommand(): string[] {
	const of = (word: string) => JSON.parse(instructions().find(([w]) => w === word)![1]) as string[];
	return [...of('ENTRYPOINT'), ...of('CMD')];
}

type Service = {image?: string; build?: string; command?: string[]; user?: string; pid?: string; volumes?: string[]};
const compose = () =>
	parse(fs.readFileSync(path.join(DOCKER, 'compose.yml'), 'utf8')) as {
		services: Record<string, Service>;
		volumes: Record<string, unknown>;
	};

/** `source` bound read-only at a new folder: what the container sees of Hermes' volume. */
function readOnlyMount(source: string): string {
	const target = fs.mkdtempSync(path.join(dir, 'ro-'));
	const bind = spawnSync('mount', ['--bind', source, target], {encoding: 'utf8'});
	if (bind.status !== 0) {
		throw new Error(`mount --bind needs root (CAP_SYS_ADMIN), as .ci/run runs the fleet tier: ${bind.stderr.trim()}`);
	}

	mounted.unshift(target);
	expect(spawnSync('mount', ['-o', 'remount,ro,bind', target]).status).toBe(0);
	expect(() => fs.writeFileSync(path.join(target, 'probe'), '')).toThrow(/EROFS/);
	return target;
}

describe('the container recipe', () => {
	it(
		'the Dockerfile: Node 24, hfx from the packed tarball without install ' +
			'scripts, not root, hfx watch in exec form',
		() => {
			const words = instructions().map(([w]) => w);
			expect(words).toEqual(['FROM', 'COPY', 'RUN', 'USER', 'ENTRYPOINT', 'CMD']);
			expect(instructions()[0]![1]).toMatch(/^node:24[.-]/);
			expect(instructions()[2]![1]).toContain('npm install -g --ignore-scripts /tmp/hermes-forensics-*.tgz');
			expect(instructions()[3]![1]).not.toMatch(/^(root|0)$/);
			const command = containerCommand();
			expect(command.slice(0, 2)).toEqual(['hfx', 'watch']);
			expect(command.join(' ')).toContain('--home /hermes');
			expect(command.join(' ')).toContain('--json-lines');
			expect(command.join(' ')).toMatch(/--textfile \/textfile\/[a-z-]+\.prom\b/);
		},
	);

	it(
		"the compose snippet: the same command, Hermes' volume read-only, the " +
			'textfile on its own volume that node_exporter reads',
		() => {
			const {services, volumes} = compose();
			const watch = services['hfx-watch']!;
			expect(watch.command).toEqual(containerCommand().slice(1));
			expect(watch.build).toBe('.');
			expect(fs.existsSync(path.join(DOCKER, watch.build!, 'Dockerfile'))).toBe(true);
			expect(watch.user).toMatch(/^\d+:\d+$/);
			expect(watch.pid).toBe('service:hermes');
			const at = (service: Service, target: string) =>
				(service.volumes ?? []).map(v => v.split(':')).find(([, t]) => t === target);
			expect(at(watch, '/hermes')).toEqual(['hermes-data', '/hermes', 'ro']);
			expect(at(watch, '/textfile')).toEqual(['hfx-textfile', '/textfile']);
			const exporter = services['node-exporter']!;
			expect(at(exporter, '/textfile')).toEqual(['hfx-textfile', '/textfile', 'ro']);
			expect(exporter.command).toContain('--collector.textfile.directory=/textfile');
			expect(Object.keys(volumes).sort()).toEqual(['hermes-data', 'hfx-textfile']);
			// The README gives the same command line and the build step.
			expect(readme).toContain(`The container runs \`${containerCommand().join(' ')}\``);
			expect(readme).toContain('npm pack --pack-destination contrib/docker && docker build -t hfx contrib/docker');
		},
	);

	it('runs its exact command line on a read-only mount of a Hermes root while ' +
		'an agent writes: every store read, the findings said, nothing changed', async () => {
		const root = path.join(dir, 'root');
		fs.cpSync(path.join(ROOT, 'test/fixtures/hermes-generations/root'), root, {recursive: true});
		// A live agent in WAL mode, writing through the writable path (Hermes' own container).
		fs.mkdirSync(path.join(root, 'profiles', 'live'));
		writer = new WriterProcess(path.join(root, 'profiles', 'live', 'state.db'));
		await writer.started();
		const id = await writer.create({
			source: 'telegram',
			sessionKey: 'agent:live:telegram:dm:1',
			chatId: '1',
			chatType: 'dm',
			userId: 'u1',
			startedAt: T0,
		});
		await writer.send({op: 'messages', id, messages: [{role: 'user', content: 'hi', timestamp: T0 + 1}]});
		const hermes = readOnlyMount(root);
		const textfile = fs.mkdtempSync(path.join(dir, 'textfile-'));
		const args = containerCommand()
			.slice(2)
			.map(a => a.replace(/^\/hermes$/, hermes).replace(/^\/textfile\//, `${textfile}/`));
		const prom = path.join(textfile, path.basename(containerCommand().at(-1)!));
		const before = folderHashes(root);
		const watch = new WatchProcess(args);
		try {
			await watch.waitForEach([{event: 'repair-routing-crash'}, {event: 'after-upgrade', profile: 'ops'}], 60_000);
			await watch.waitFor(() => fs.existsSync(prom), 10_000, 'the textfile');
		} finally {
			expect((await watch.stop('SIGTERM')).code).toBe(0);
		}

		expect(watch.stderr).toBe('');
		const samples = parseExposition(fs.readFileSync(prom, 'utf8'));
		for (const profile of ['default', 'ops', 'work', 'live']) {
			expect(sampleOf(samples, 'hfx_store_up', {profile}), profile).toBe(1);
		}

		expect(sampleOf(samples, 'hfx_sessions', {profile: 'live'})).toBe(1);
		expect(sampleOf(samples, 'hfx_repair_routing_crash', {profile: 'ops'})).toBe(1);
		expect(sampleOf(samples, 'hfx_upgrade_rollback_risk_chats', {profile: 'ops'})).toBe(1);
		await writer.kill();
		writer = null;
		const after = folderHashes(root);
		// The agent's own files changed (it wrote); nothing else did, and nothing was added.
		const live = (k: string) => k.startsWith('profiles/live/');
		expect(Object.keys(after).filter(k => !live(k))).toEqual(Object.keys(before).filter(k => !live(k)));
		expect(Object.entries(after).filter(([k, v]) => !live(k) && before[k] !== v)).toEqual([]);
	}, 90_000);
});

describe('the cron line', () => {
	it("is the README's, a valid /etc/cron.d line, and runs as written: the textfile written, every store read", () => {
		const lines = fs
			.readFileSync(path.join(ROOT, 'contrib/cron/hfx-metrics'), 'utf8')
			.split('\n')
			.filter(l => l.trim() !== '' && !l.startsWith('#'));
		expect(lines).toHaveLength(1);
		const line = lines[0]!;
		expect(readme).toContain(`   ${line}\n`);
		const fields = line.split(/\s+/);
		expect(fields.slice(0, 5).every(f => /^(\*|\d+)(\/\d+)?$/.test(f))).toBe(true);
		expect(fields[5]).toBe('hermes');
		expect(fields.slice(6, 8)).toEqual(['hfx', 'metrics']);
		const root = path.join(dir, 'cron-root');
		fs.cpSync(path.join(ROOT, 'test/fixtures/hermes-generations/root'), root, {recursive: true});
		const out = fs.mkdtempSync(path.join(dir, 'cron-out-'));
		const args = fields
			.slice(8)
			.map(a =>
				a.replace(/^\/home\/hermes\/\.hermes$/, root).replace(/^\/var\/lib\/prometheus\/node-exporter\//, `${out}/`),
			);
		expect(args).toEqual(['--home', root, '--textfile', path.join(out, 'hfx.prom')]);
		const before = folderHashes(root);
		const r = hfx(['metrics', ...args]);
		expect(r).toMatchObject({code: 0, stdout: '', stderr: ''});
		const samples = parseExposition(fs.readFileSync(path.join(out, 'hfx.prom'), 'utf8'));
		expect(sampleOf(samples, 'hfx_repair_routing_crash', {profile: 'ops'})).toBe(1);
		expect(folderHashes(root)).toEqual(before);
	});
});
