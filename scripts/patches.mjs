/**
 * `prepare`'s patch step: applies every patch-package patch of hfx (patches/ for meow, source/ui/ink/ for Ink), and
 * when a patch does not apply to the installed package, puts the published package back and applies it again.
 *
 * Why: patch-package applies a patch to the package as published, or finds it applied already. A clone that pulls a
 * changed patch and runs `npm install` keeps its installed package, patched by the old patch, so the new one applies to
 * neither, and `npm install` failed with patch-package's error until the operator removed node_modules/ink by hand
 * (issue #26 changed the Ink patch more than once). Here the package is re-read from npm (`npm pack`: npm's cache
 * first), checked against package-lock.json's integrity, and laid over the installed one; its own node_modules/ is
 * kept. scripts/ci/install-paths.sh (d) installs a clone at the commit before the Ink patch last changed, moves it to
 * HEAD and runs `npm install` again.
 *
 * Fails closed: a tarball whose sha512 is not the lockfile's, a package the lockfile does not pin at the patch's
 * version, or a patch that still does not apply stops with one line and a non-zero exit.
 */
import {execFileSync, spawnSync} from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {pipeline} from 'node:stream/promises';
import {fileURLToPath, pathToFileURL} from 'node:url';
import zlib from 'node:zlib';
import tar from 'tar-stream';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The patch folders, in the order prepare applies them. */
export const PATCH_DIRS = ['patches', 'source/ui/ink'];

/** The package a patch-package file patches: `ink+8.0.0.patch` is ink 8.0.0, `@scope+name+1.2.3.patch` @scope/name. */
export function patchedPackage(fileName) {
	const match = /^(.+)\+([^+]+)\.patch$/.exec(fileName);
	if (!match) {
		throw new Error(`${fileName} is not named <package>+<version>.patch`);
	}

	return {name: match[1].replace('+', '/'), version: match[2]};
}

/** The packages the patches of `dir` (relative to `base`) patch. */
export function packagesOf(base, dir) {
	return fs
		.readdirSync(path.join(base, dir))
		.filter(name => name.endsWith('.patch'))
		.map(patchedPackage);
}

/**
 * Runs patch-package on one patch folder; true when every patch applied (or was applied already). Its report is
 * printed, but a failure's only when `last` (a first failure is repaired below, and its error box would mislead).
 */
function applyDir(dir, last) {
	const bin = path.join(root, 'node_modules', 'patch-package', 'index.js');
	const run = spawnSync(process.execPath, [bin, '--patch-dir', dir, '--error-on-fail'], {cwd: root, encoding: 'utf8'});
	if (run.status === 0 || last) {
		process.stdout.write(run.stdout ?? '');
		process.stderr.write(run.stderr ?? '');
	}

	return run.status === 0;
}

/** `npm pack name@version` into `into`, from npm's cache when it holds it; the tarball's path. */
function packFromNpm(name, version, into) {
	const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
	const args = ['pack', `${name}@${version}`, '--pack-destination', into, '--prefer-offline', '--json', '--silent'];
	const out = execFileSync(npm[0], [...npm.slice(1), ...args], {
		cwd: into,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 2],
	});
	return path.join(into, JSON.parse(out)[0].filename);
}

/** The `package/` entries of a gzipped npm tarball, written under `into`. */
async function extract(tarball, into) {
	const unpack = tar.extract();
	unpack.on('entry', (header, stream, next) => {
		const relative = path.posix.normalize(header.name).replace(/^package\//, '');
		const target = path.join(into, relative);
		if (header.type !== 'file' || relative.startsWith('..') || path.isAbsolute(relative)) {
			stream.resume();
			stream.on('end', next);
			return;
		}

		fs.mkdirSync(path.dirname(target), {recursive: true});
		pipeline(stream, fs.createWriteStream(target, {mode: (header.mode || 0o644) & 0o755})).then(() => next(), next);
	});
	await pipeline(fs.createReadStream(tarball), zlib.createGunzip(), unpack);
}

/**
 * Lays the published package (`tarball`, whose sha512 must be `integrity`, an SRI string) over `packageDir`: every
 * file of it goes, but its node_modules/, and the tarball's files come in. Nothing is touched when the check fails.
 */
export async function restorePackage(packageDir, tarball, integrity) {
	const digest = `sha512-${crypto.createHash('sha512').update(fs.readFileSync(tarball)).digest('base64')}`;
	if (digest !== integrity) {
		throw new Error(`${path.basename(tarball)}: its sha512 is not package-lock.json's (${integrity.slice(0, 20)}…)`);
	}

	const fresh = fs.mkdtempSync(path.join(path.dirname(tarball), 'package-'));
	await extract(tarball, fresh);
	for (const entry of fs.readdirSync(packageDir)) {
		if (entry !== 'node_modules') {
			fs.rmSync(path.join(packageDir, entry), {recursive: true, force: true});
		}
	}

	fs.cpSync(fresh, packageDir, {recursive: true});
	fs.rmSync(fresh, {recursive: true, force: true});
}

/** Puts back the published copy of every package `dir` patches, as package-lock.json pins it. */
async function restoreDir(dir) {
	const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
	const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-patches-'));
	try {
		for (const {name, version} of packagesOf(root, dir)) {
			const pinned = lock.packages?.[`node_modules/${name}`];
			if (pinned?.version !== version || !pinned.integrity) {
				throw new Error(`package-lock.json does not pin ${name} at ${version}, the version ${dir} patches`);
			}

			await restorePackage(path.join(root, 'node_modules', name), packFromNpm(name, version, temp), pinned.integrity);
			console.error(`patches: ${dir}: node_modules/${name} put back as published (${version}), to patch again`);
		}
	} finally {
		fs.rmSync(temp, {recursive: true, force: true});
	}
}

async function main() {
	for (const dir of PATCH_DIRS) {
		if (applyDir(dir, false)) {
			continue;
		}

		console.error(`patches: ${dir} does not apply to the installed packages; putting them back as published`);
		await restoreDir(dir);
		if (!applyDir(dir, true)) {
			throw new Error(`${dir} does not apply to the published packages either: the patch is broken`);
		}
	}
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
	main().catch(error => {
		console.error(`patches: ${error.message}. Next: rm -rf node_modules && npm install`);
		process.exitCode = 1;
	});
}
