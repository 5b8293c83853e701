/**
 * The persistence doctor's parts: mountinfo parsing and the overlay (container writable layer)
 * verdict, config.yaml read with a YAML parser, and a full report on a real folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {classify, examineHome, mountFor, parseMountinfo, readConfig} from '../../../source/backup/ops/doctor.js';
import {cleanupTemps, makeHome, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

const DOCKER_MOUNTINFO = [
	'512 480 0:52 / / rw,relatime master:190 - overlay overlay ' +
		'rw,lowerdir=/var/lib/docker/overlay2/l/A:/var/lib/docker/overlay2/l/B,' +
		'upperdir=/var/lib/docker/overlay2/x/diff,workdir=/var/lib/docker/overlay2/x/work',
	'513 512 0:55 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw',
	'520 512 254:1 /srv/hermes-data /opt/data rw,relatime - ext4 /dev/vda1 rw',
	'521 512 254:1 /var/lib/docker/containers/abc/hostname /etc/hostname rw,relatime - ext4 /dev/vda1 rw',
	'522 512 0:60 / /tmp/my\\040dir rw - tmpfs tmpfs rw,size=65536k',
].join('\n');

describe('mountinfo', () => {
	it('parses fields (escaped spaces included) and finds the mount of a path', () => {
		const mounts = parseMountinfo(DOCKER_MOUNTINFO);
		expect(mounts).toHaveLength(5);
		expect(mounts[0]).toMatchObject({mountPoint: '/', fsType: 'overlay', root: '/'});
		expect(mounts[4]!.mountPoint).toBe('/tmp/my dir');
		expect(mountFor('/opt/data/state.db', mounts)!.fsType).toBe('ext4');
		expect(mountFor('/opt/database', mounts)!.fsType).toBe('overlay');
		expect(mountFor('/root/.hermes', mounts)!.mountPoint).toBe('/');
	});

	it('classifies: overlay root in a container = writable layer; a bind mount = volume; tmpfs = memory', () => {
		const mounts = parseMountinfo(DOCKER_MOUNTINFO);
		expect(classify(mountFor('/root/.hermes', mounts), true)).toBe('container-writable-layer');
		expect(classify(mountFor('/opt/data', mounts), true)).toBe('volume-or-bind-mount');
		expect(classify(mountFor('/tmp/my dir/x', mounts), true)).toBe('memory');
		expect(classify(mountFor('/home/me/.hermes', parseMountinfo('30 1 254:1 / / rw - ext4 /dev/vda1 rw')), false)).toBe(
			'host',
		);
	});
});

describe('config.yaml', () => {
	it(
		'reads terminal.backend and terminal.container_persistent with a YAML ' + 'parser (comments, quoting, flow maps)',
		() => {
			const dir = tempDir('cfg');
			fs.writeFileSync(
				path.join(dir, 'config.yaml'),
				'# terminal: {backend: local}\nmodel: "x"\nterminal: {backend: "docker", ' +
					'container_persistent: false}\ndatabase:\n  journal_mode: wal # default\n',
			);
			expect(readConfig(dir)).toMatchObject({
				found: true,
				error: null,
				backend: 'docker',
				containerPersistent: false,
				journalMode: 'wal',
			});
			fs.writeFileSync(path.join(dir, 'config.yaml'), 'terminal:\n  backend: [unclosed\n');
			expect(readConfig(dir).error).toMatch(/not valid YAML/);
			expect(readConfig(tempDir('nocfg')).found).toBe(false);
		},
	);
});

describe('examineHome on a real folder', () => {
	it("warns that a root in the container's writable layer is lost on rebuild, and says what the sandbox keeps", () => {
		const home = makeHome('doctor');
		const text = `512 480 0:52 / / rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w\n`;
		const r = examineHome({
			root: home.root,
			now: Date.now() / 1000,
			mountinfo: text,
			containerHint: '/.dockerenv exists',
		});
		expect(r.layer).toBe('container-writable-layer');
		expect(r.exitCode).toBe(1);
		expect(r.warnings.some(w => /LOST when the container is removed or rebuilt/.test(w))).toBe(true);
		expect(r.config).toMatchObject({backend: 'docker', containerPersistent: false});
		expect(r.lost.some(l => /re-created at every restart of the agent/.test(l))).toBe(true);
		expect(r.warnings.some(w => /no verified backup/.test(w))).toBe(true);
		expect(r.stores.map(s => s.label)).toEqual(['default', 'work']);
		expect(r.stores[0]).toMatchObject({journalMode: 'wal', holders: [], deletedWal: false});
	});
});
