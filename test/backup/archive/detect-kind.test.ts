/**
 * What a backup artifact is by its first bytes (source/backup/archive/detect-kind.ts): real files
 * in a temp folder, a FIFO never opened, and the words for a path that is no artifact.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {afterAll, describe, expect, it} from 'vitest';
import {detectKind, notAnArtifact} from '../../../source/backup/archive/detect-kind.js';
import {craftTar} from '../../reliability/craft-tar.js';
import {cleanupTemps, craftZip, tempDir} from '../helpers.js';

afterAll(cleanupTemps);

function file(dir: string, name: string, bytes: Buffer): string {
	const p = path.join(dir, name);
	fs.writeFileSync(p, bytes);
	return p;
}

describe('detectKind', () => {
	it('tells a zip, a tar.gz, a tar and a snapshot folder by their bytes, whatever their names', () => {
		const dir = tempDir('kind');
		const zip = file(dir, 'a.bin', craftZip([{name: 'state.db', data: Buffer.from('x')}]));
		const gz = craftTar(path.join(dir, 'b.bin'), [{name: 'state.db', data: Buffer.from('x')}]);
		const tar = file(dir, 'c.bin', zlib.gunzipSync(fs.readFileSync(gz)));
		expect(detectKind(zip)).toBe('zip');
		expect(detectKind(gz)).toBe('tar.gz');
		expect(detectKind(tar)).toBe('tar');
		expect(detectKind(dir)).toBe('snapshot');
	});

	it('takes an empty zip (its end record first, PK\\5\\6) as a zip', () => {
		const dir = tempDir('kind-empty');
		expect(detectKind(file(dir, 'empty.bin', craftZip([])))).toBe('zip');
	});

	it('a file of other bytes is unknown, unless its name ends in .zip (a damaged zip goes to the zip reader)', () => {
		const dir = tempDir('kind-other');
		const text = Buffer.from('SQLite format 3\0 and then some');
		expect(detectKind(file(dir, 'x.db', text))).toBe('unknown');
		expect(detectKind(file(dir, 'x.ZIP', text))).toBe('zip');
		expect(detectKind(file(dir, 'short', Buffer.from([0x1f])))).toBe('unknown');
		expect(detectKind(file(dir, 'pk-other', Buffer.from('PK\x07\x08rest')))).toBe('unknown');
		// "ustar" at the wrong offset is no tar.
		expect(detectKind(file(dir, 'ustar-early', Buffer.concat([Buffer.from('ustar'), Buffer.alloc(600)])))).toBe(
			'unknown',
		);
	});

	it('an absent path and a FIFO are unknown (the FIFO named .zip never opened: this returns at once)', () => {
		const dir = tempDir('kind-fifo');
		expect(detectKind(path.join(dir, 'absent.zip'))).toBe('unknown');
		const fifo = path.join(dir, 'pipe.zip');
		expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
		expect(detectKind(fifo)).toBe('unknown');
	});
});

describe('notAnArtifact', () => {
	it('is null for a file and a folder, and says what else a path is', () => {
		const dir = tempDir('not-artifact');
		expect(notAnArtifact(dir)).toBeNull();
		expect(notAnArtifact(file(dir, 'x.zip', Buffer.from('x')))).toBeNull();
		expect(notAnArtifact(path.join(dir, 'absent'))).toBe('no such file or folder');
		const fifo = path.join(dir, 'pipe');
		expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
		expect(notAnArtifact(fifo)).toBe(
			'a FIFO, not a file or folder: hfx never opens it as an archive ' +
				'(a FIFO or a device could block the read forever)',
		);
		expect(notAnArtifact('/dev/null')).toMatch(/^a device, not a file or folder/);
	});
});
