/**
 * scripts/patches.mjs, prepare's patch step: when a pulled patch no longer applies to the installed (older-patched)
 * package, it lays the published tarball over it, checked against the lockfile's integrity, and patches again. The
 * whole flow, with npm, is scripts/ci/install-paths.sh (d); these check the pieces that need no registry.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import {afterEach, describe, expect, it} from 'vitest';
// @ts-expect-error: a plain ESM script of the build, with no types
import {PATCH_DIRS, packagesOf, patchedPackage, restorePackage} from '../../scripts/patches.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const temps: string[] = [];
afterEach(() => {
	for (const dir of temps.splice(0)) {
		fs.rmSync(dir, {recursive: true, force: true});
	}
});

/** A gzipped npm tarball of `files` (under package/) in a temp dir, with its SRI sha512. */
async function tarball(files: Record<string, string>): Promise<{file: string; integrity: string; dir: string}> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-patches-test-'));
	temps.push(dir);
	const pack = tar.pack();
	for (const [name, text] of Object.entries(files)) {
		pack.entry({name: `package/${name}`, mode: 0o644}, text);
	}

	pack.finalize();
	const chunks: Buffer[] = [];
	for await (const chunk of pack) {
		chunks.push(chunk as Buffer);
	}

	const bytes = zlib.gzipSync(Buffer.concat(chunks));
	const file = path.join(dir, 'pkg-1.0.0.tgz');
	fs.writeFileSync(file, bytes);
	return {file, dir, integrity: `sha512-${crypto.createHash('sha512').update(bytes).digest('base64')}`};
}

/** An installed package as an older patch left it: a patched file, a file the patch added, its own node_modules. */
function installed(dir: string): string {
	const packageDir = path.join(dir, 'node_modules', 'pkg');
	fs.mkdirSync(path.join(packageDir, 'build'), {recursive: true});
	fs.mkdirSync(path.join(packageDir, 'node_modules', 'dep'), {recursive: true});
	fs.writeFileSync(path.join(packageDir, 'build', 'a.js'), 'patched a');
	fs.writeFileSync(path.join(packageDir, 'build', 'added-by-patch.js'), 'added');
	fs.writeFileSync(path.join(packageDir, 'node_modules', 'dep', 'index.js'), 'dep');
	return packageDir;
}

/** Every file under `dir`, relative, with its text. */
function tree(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const entry of fs.readdirSync(dir, {recursive: true, withFileTypes: true})) {
		if (entry.isFile()) {
			const file = path.join(entry.parentPath, entry.name);
			out[path.relative(dir, file)] = fs.readFileSync(file, 'utf8');
		}
	}

	return out;
}

describe('scripts/patches.mjs', () => {
	it('names the package and version each patch file patches, scoped ones too', () => {
		expect(patchedPackage('ink+8.0.0.patch')).toEqual({name: 'ink', version: '8.0.0'});
		expect(patchedPackage('@scope+name+1.2.3-rc.1.patch')).toEqual({name: '@scope/name', version: '1.2.3-rc.1'});
		expect(() => patchedPackage('ink.patch')).toThrow(/<package>\+<version>\.patch/);
	});

	it("patches only packages package.json pins at the patch's version", () => {
		const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
			dependencies: Record<string, string>;
			devDependencies: Record<string, string>;
		};
		const pins = {...pkg.dependencies, ...pkg.devDependencies};
		const patched = PATCH_DIRS.flatMap((dir: string) => packagesOf(ROOT, dir)) as Array<{
			name: string;
			version: string;
		}>;
		expect(patched.map(p => p.name).sort()).toEqual(['ink', 'meow']);
		for (const {name, version} of patched) {
			expect(pins[name], name).toBe(version);
		}
	});

	it('lays the published package over an older-patched one, keeping its node_modules', async () => {
		const published = await tarball({'build/a.js': 'published a', 'package.json': '{"name":"pkg"}'});
		const packageDir = installed(published.dir);
		await restorePackage(packageDir, published.file, published.integrity);
		expect(tree(packageDir)).toEqual({
			'build/a.js': 'published a',
			'package.json': '{"name":"pkg"}',
			'node_modules/dep/index.js': 'dep',
		});
	});

	it("touches nothing when the tarball is not the lockfile's", async () => {
		const published = await tarball({'build/a.js': 'published a'});
		const packageDir = installed(published.dir);
		const before = tree(packageDir);
		const other = `sha512-${crypto.createHash('sha512').update('other').digest('base64')}`;
		await expect(restorePackage(packageDir, published.file, other)).rejects.toThrow(/not package-lock\.json's/);
		expect(tree(packageDir)).toEqual(before);
	});
});
