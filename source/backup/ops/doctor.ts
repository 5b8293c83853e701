/**
 * `hfx doctor`: will the agent's memory survive? Where the Hermes root lives (its mount and
 * filesystem type from /proc/self/mountinfo), whether it sits in a container's writable layer
 * (overlay root, no volume: lost when the container is removed), what config.yaml says about the
 * terminal sandbox (read with a YAML parser), in plain words what survives a restart of the
 * agent and what does not, the age of the last verified backup, and the WAL state of every
 * store (from file sizes, /proc fds and /proc/locks; no SQLite connection is opened).
 * Exit 0 nothing to warn about, 1 any warning, 2 could not run.
 */
import fs from 'node:fs';
import path from 'node:path';
import {createRequire} from 'node:module';
import type * as Yaml from 'yaml';
import {duration} from '../../forensics/duration.js';
import {FailClosed, errorCode, errorMessage, throwFileError} from '../../ground/errors.js';
import {describeHolder, findHolders} from '../../store/files/holders.js';
import {storesUnderRoot} from '../../store/locate.js';
import {readForeign} from '../../store/foreign-file.js';
import {preflight} from '../../store/open/preflight.js';
import {defaultBackupDir} from '../create/backup.js';
import {listBackups} from './list.js';

export type MountEntry = {
	mountId: number;
	parentId: number;
	device: string;
	/** The folder of the source filesystem mounted here (bind mounts show a sub-folder). */
	root: string;
	mountPoint: string;
	options: string;
	fsType: string;
	source: string;
	superOptions: string;
};

function unescapeMount(text: string): string {
	return text.replaceAll(/\\(\d{3})/g, (_m, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));
}

/** Parses /proc/self/mountinfo (proc(5)). */
export function parseMountinfo(text: string): MountEntry[] {
	const out: MountEntry[] = [];
	for (const line of text.split('\n')) {
		if (!line.trim()) {
			continue;
		}

		const [left, right] = line.split(' - ');
		if (!left || !right) {
			continue;
		}

		const a = left.split(' ');
		const b = right.split(' ');
		if (a.length < 6 || b.length < 2) {
			continue;
		}

		out.push({
			mountId: Number(a[0]),
			parentId: Number(a[1]),
			device: a[2]!,
			root: unescapeMount(a[3]!),
			mountPoint: unescapeMount(a[4]!),
			options: a[5]!,
			fsType: b[0]!,
			source: unescapeMount(b[1]!),
			superOptions: b[2] ?? '',
		});
	}

	return out;
}

/** The mount a path lives on: the longest mount point that contains it (the last one wins on ties). */
export function mountFor(p: string, mounts: readonly MountEntry[]): MountEntry | null {
	let best: MountEntry | null = null;
	for (const m of mounts) {
		const mp = m.mountPoint;
		const inside = mp === '/' || p === mp || p.startsWith(`${mp}/`);
		if (inside && (!best || mp.length >= best.mountPoint.length)) {
			best = m;
		}
	}

	return best;
}

const OVERLAY_TYPES = new Set(['overlay', 'overlayfs', 'aufs', 'fuse-overlayfs']);
const VOLATILE_TYPES = new Set(['tmpfs', 'ramfs']);

export type Layer = 'container-writable-layer' | 'volume-or-bind-mount' | 'memory' | 'host' | 'unknown';

export function classify(mount: MountEntry | null, inContainer: boolean): Layer {
	if (!mount) {
		return 'unknown';
	}

	if (VOLATILE_TYPES.has(mount.fsType)) {
		return 'memory';
	}

	if (OVERLAY_TYPES.has(mount.fsType)) {
		return mount.mountPoint === '/' || inContainer ? 'container-writable-layer' : 'host';
	}

	if (inContainer) {
		// Inside a container, "/" is the container's own filesystem whatever its type; a volume is a separate mount.
		return mount.mountPoint === '/' ? 'container-writable-layer' : 'volume-or-bind-mount';
	}

	return 'host';
}

export type DoctorConfig = {
	path: string;
	found: boolean;
	error: string | null;
	backend: string | null;
	containerPersistent: boolean | null;
	journalMode: string | null;
	cwd: string | null;
};

const requireHere = createRequire(import.meta.url);
let yaml: typeof Yaml | undefined;

/**
 * The YAML parser, loaded when doctor first reads a config.yaml: kept out of the bundle, whose every start parsed it
 * (13% of it) for three keys.
 */
function loadYaml(): typeof Yaml {
	yaml ??= requireHere('yaml') as typeof Yaml;
	return yaml;
}

/** A Hermes config.yaml is a few kB; beyond this it is not read. */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export function readConfig(root: string): DoctorConfig {
	const file = path.join(root, 'config.yaml');
	const base: DoctorConfig = {
		path: file,
		found: false,
		error: null,
		backend: null,
		containerPersistent: null,
		journalMode: null,
		cwd: null,
	};
	let text: string;
	try {
		// A regular file only, bounded: a FIFO named config.yaml is reported, never read (it would block).
		const read = readForeign(file, {maxBytes: MAX_CONFIG_BYTES, what: 'it as the config'});
		if (read.truncated) {
			return {...base, found: true, error: `larger than ${MAX_CONFIG_BYTES} bytes: not read`};
		}

		text = read.bytes.toString('utf8');
	} catch (error) {
		return error instanceof FailClosed ? {...base, found: true, error: error.reason} : base;
	}

	base.found = true;
	let doc: unknown;
	try {
		doc = loadYaml().parse(text);
	} catch (error) {
		return {...base, error: `not valid YAML (${errorMessage(error).split('\n')[0]})`};
	}

	const get = (obj: unknown, ...keys: string[]): unknown => {
		let cur = obj;
		for (const k of keys) {
			if (!cur || typeof cur !== 'object') {
				return undefined;
			}

			cur = (cur as Record<string, unknown>)[k];
		}

		return cur;
	};

	const backend = get(doc, 'terminal', 'backend');
	const persistent = get(doc, 'terminal', 'container_persistent');
	const journal = get(doc, 'database', 'journal_mode');
	const cwd = get(doc, 'terminal', 'cwd');
	return {
		...base,
		backend: typeof backend === 'string' ? backend : null,
		containerPersistent:
			typeof persistent === 'boolean'
				? persistent
				: persistent === 'true'
					? true
					: persistent === 'false'
						? false
						: null,
		journalMode: typeof journal === 'string' ? journal : null,
		cwd: typeof cwd === 'string' ? cwd : null,
	};
}

export type DoctorStore = {
	path: string;
	label: string;
	journalMode: 'wal' | 'delete' | null;
	dbBytes: number | null;
	walBytes: number | null;
	shm: boolean;
	holders: string[];
	deletedWal: boolean;
	error: string | null;
};

export type DoctorReport = {
	root: string;
	mount: MountEntry | null;
	inContainer: boolean;
	containerHint: string | null;
	layer: Layer;
	config: DoctorConfig;
	survives: string[];
	lost: string[];
	backupDirs: string[];
	lastVerified: {name: string; path: string; ageSeconds: number | null; drilled: boolean; sameMount: boolean} | null;
	stores: DoctorStore[];
	warnings: string[];
	exitCode: 0 | 1;
};

export type DoctorOptions = {
	root: string;
	backupDirs?: string[];
	now: number;
	/** Test seams: the mountinfo text and container hint (default: read from /proc and /). */
	mountinfo?: string;
	containerHint?: string | null;
};

function detectContainer(): string | null {
	if (fs.existsSync('/.dockerenv')) {
		return '/.dockerenv exists';
	}

	if (fs.existsSync('/run/.containerenv')) {
		return '/run/.containerenv exists (podman)';
	}

	try {
		const cg = readForeign('/proc/1/cgroup', {maxBytes: 1024 * 1024}).bytes.toString('utf8');
		const m = /(docker|kubepods|containerd|libpod|lxc)/.exec(cg);
		if (m) {
			return `/proc/1/cgroup mentions ${m[1]}`;
		}
	} catch {
		// not Linux, or hidden
	}

	return null;
}

const SANDBOX_BACKENDS = new Set(['docker', 'singularity', 'apptainer', 'modal', 'daytona', 'podman']);

/** What survives and what is lost, in plain words: the three lists the report carries. */
type Outlook = {warnings: string[]; survives: string[]; lost: string[]};

function readMountinfo(options: DoctorOptions): string {
	let mountText = options.mountinfo;
	if (mountText === undefined) {
		try {
			mountText = readForeign('/proc/self/mountinfo', {maxBytes: 16 * 1024 * 1024}).bytes.toString('utf8');
		} catch {
			mountText = '';
		}
	}

	return mountText;
}

/** What the filesystem under the root keeps: the container's writable layer, memory, a volume, the host. */
function layerOutlook(layer: Layer, root: string, mount: MountEntry | null, out: Outlook): void {
	const {warnings, survives, lost} = out;
	const where = mount
		? `${mount.mountPoint} (${mount.fsType}${mount.source && mount.source !== 'none' ? ` from ${mount.source}` : ''})`
		: 'an unknown mount';
	switch (layer) {
		case 'container-writable-layer': {
			warnings.push(
				`${root} is on the container's own root filesystem, its writable layer ` +
					`(${where}), not on a volume: everything in it (the session store, ` +
					`memories, skills, credentials) is LOST when the container is removed or ` +
					`rebuilt. Mount a volume there (e.g. -v ~/.hermes:${root}) and copy the ` +
					`data onto it first`,
			);
			survives.push(
				'a restart of the agent process, and a restart of the same container ' +
					'(docker restart): the writable layer is kept',
			);
			lost.push(
				'removing or rebuilding the container (docker compose build/up ' +
					'--force-recreate, docker rm): the writable layer, and the Hermes root ' +
					'with it, is deleted',
			);
			break;
		}

		case 'memory': {
			warnings.push(
				`${root} is on ${where}, a filesystem in memory: everything in it is lost at every reboot or container restart`,
			);
			lost.push('any restart of the machine or container: tmpfs keeps nothing');
			break;
		}

		case 'volume-or-bind-mount': {
			survives.push(
				`restarting, removing and rebuilding the container: ${root} is a separate mount (${where}), which Docker keeps`,
			);
			lost.push(
				`deleting the volume itself (docker volume rm, docker compose down -v) ` +
					`or the host folder behind ${mount?.root ?? 'it'}`,
			);
			break;
		}

		case 'host': {
			survives.push(`restarts of the agent and of the machine: ${root} is on ${where}`);
			lost.push('a failure of that disk, or deleting the folder: keep backups elsewhere');
			break;
		}

		default: {
			warnings.push(`cannot tell which filesystem ${root} is on (no /proc/self/mountinfo entry)`);
		}
	}
}

/** What config.yaml says: whether it parses, and what the terminal sandbox keeps. */
function configOutlook(config: DoctorConfig, root: string, out: Outlook): void {
	const {warnings, survives, lost} = out;
	if (config.error) {
		warnings.push(`${config.path} is ${config.error}: Hermes will not start with it as is`);
	}

	const backend = config.backend;
	if (backend && SANDBOX_BACKENDS.has(backend)) {
		if (config.containerPersistent === true) {
			survives.push(
				`files the agent creates inside its ${backend} terminal sandbox survive ` +
					`a restart of the agent (terminal.container_persistent: true), but not a ` +
					`removal of that sandbox`,
			);
		} else if (config.containerPersistent === false) {
			lost.push(
				`files the agent creates inside its ${backend} terminal sandbox, outside ` +
					`mounted folders: the sandbox is re-created at every restart of the ` +
					`agent (terminal.container_persistent: false)`,
			);
		} else {
			lost.push(
				`possibly files created inside the ${backend} terminal sandbox: ` +
					`terminal.container_persistent is not set, so Hermes' default applies ` +
					`(hermes config get terminal.container_persistent)`,
			);
		}
	} else if (backend === 'local' || (config.found && backend === null)) {
		survives.push(
			`terminal commands run directly where Hermes runs ` +
				`(terminal.backend: ${backend ?? 'not set, the local default'}): what ` +
				`they create lives in the working ` +
				`folder${config.cwd ? ` (${config.cwd})` : ''} and survives exactly as ` +
				`that folder's filesystem does`,
		);
	} else if (backend) {
		survives.push(`terminal.backend is ${backend}: files created by terminal commands live on that remote side`);
	}

	if (!config.found) {
		warnings.push(`no config.yaml in ${root}: is this the Hermes root? (Hermes writes one at setup)`);
	}
}

// Backups.
function backupOutlook(
	root: string,
	options: DoctorOptions,
	mounts: MountEntry[],
	mount: MountEntry | null,
	layer: Layer,
	warnings: string[],
): Pick<DoctorReport, 'backupDirs' | 'lastVerified'> {
	const backupDirs =
		options.backupDirs && options.backupDirs.length > 0
			? options.backupDirs.map(d => path.resolve(d))
			: [defaultBackupDir(root)];
	// What `hfx backups` lists (the backup folder and the quick snapshots of every profile), verified and this home's.
	const entries = listBackups({root, dirs: backupDirs, now: options.now}).filter(
		e => e.verified && e.owner !== 'other',
	);
	entries.sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0));
	const best = entries[0] ?? null;
	let lastVerified: DoctorReport['lastVerified'] = null;
	if (best) {
		let sameMount = false;
		try {
			const bm = mountFor(fs.realpathSync(best.path), mounts);
			sameMount = bm !== null && mount !== null && bm.mountId === mount.mountId;
		} catch {
			sameMount = false;
		}

		lastVerified = {
			name: best.name,
			path: best.path,
			ageSeconds: best.ageSeconds,
			drilled: best.drilled !== null,
			sameMount,
		};
		if ((best.ageSeconds ?? Number.POSITIVE_INFINITY) > 86_400) {
			warnings.push(`the last verified backup (${best.name}) is ${duration(best.ageSeconds)} old`);
		}

		if (sameMount && (layer === 'container-writable-layer' || layer === 'memory')) {
			warnings.push(
				`the last verified backup (${best.path}) is on the ` +
					`same ${layer === 'memory' ? 'tmpfs' : 'writable layer'} as the Hermes ` +
					`root: it goes with it; copy it out of the container (docker cp) or back ` +
					`up to a volume (-o DIR)`,
			);
		}
	} else {
		warnings.push(
			`no verified backup in ${backupDirs.join(', ')} or the quick snapshots ` +
				`under ${root}: run hfx backup (and hfx restore --drill <archive>)`,
		);
	}

	return {backupDirs, lastVerified};
}

// WAL state of every store: sizes, holders; no SQLite open.
function storeState(s: {path: string; label: string}, warnings: string[]): DoctorStore {
	const st: DoctorStore = {
		path: s.path,
		label: s.label,
		journalMode: null,
		dbBytes: null,
		walBytes: null,
		shm: false,
		holders: [],
		deletedWal: false,
		error: null,
	};
	try {
		const pre = preflight(s.path);
		st.journalMode = pre.journalMode;
		st.dbBytes = pre.main.size;
		st.walBytes = pre.sidecars.wal?.size ?? null;
		st.shm = pre.sidecars.shm !== null;
	} catch (error) {
		st.error = error instanceof FailClosed ? error.reason : errorMessage(error);
		warnings.push(`${s.path}: ${st.error}`);
	}

	const holders = findHolders(s.path);
	st.holders = holders.holders.map(h => describeHolder(h));
	st.deletedWal = holders.holders.some(h => h.holdsDeletedWal);
	if (st.deletedWal) {
		warnings.push(
			`${s.path}: a process holds a deleted -wal of it (an old WAL ` +
				`generation); restart every Hermes process on that profile`,
		);
	}

	if (st.walBytes !== null && st.walBytes > 256 * 1024 * 1024) {
		warnings.push(
			`${s.path}-wal is ${Math.round(st.walBytes / 1_048_576)} MiB: ` +
				`checkpoints are starved (a long reader?); it is replayed on every open`,
		);
	}

	return st;
}

/** The root's real path; refuses a missing root and one that is not a folder (a home is a directory, never a file). */
function homeFolder(root: string): string {
	let st: fs.Stats;
	try {
		st = fs.statSync(root);
	} catch (error) {
		if (errorCode(error) === 'ENOENT') {
			throw new FailClosed({
				file: root,
				kind: 'no-home',
				reason: 'no Hermes root here',
				next: 'pass --home DIR (or set HERMES_HOME)',
			});
		}

		throwFileError(error, {file: root, doing: 'looking up the Hermes root'});
	}

	if (!st.isDirectory()) {
		throw new FailClosed({
			file: root,
			kind: 'home-not-a-folder',
			reason: `a Hermes home must be a directory, and this is ${st.isFile() ? 'a file' : 'not a directory'}`,
			next: `pass the folder that holds state.db (--home ${path.dirname(root)}?), or --db for one store file`,
		});
	}

	try {
		return fs.realpathSync(root);
	} catch (error) {
		throwFileError(error, {file: root, doing: 'resolving the Hermes root'});
	}
}

export function examineHome(options: DoctorOptions): DoctorReport {
	const root = path.resolve(options.root);
	const real = homeFolder(root);
	const mounts = parseMountinfo(readMountinfo(options));
	const mount = mountFor(real, mounts);
	const rootMount = mountFor('/', mounts);
	const containerHint =
		options.containerHint === undefined
			? (detectContainer() ??
				(rootMount && OVERLAY_TYPES.has(rootMount.fsType) ? 'the root filesystem is an overlay' : null))
			: options.containerHint;
	const inContainer = containerHint !== null;
	const layer = classify(mount, inContainer);
	const config = readConfig(root);
	const out: Outlook = {warnings: [], survives: [], lost: []};
	const {warnings, survives, lost} = out;
	layerOutlook(layer, root, mount, out);
	configOutlook(config, root, out);
	survives.push(
		'the session store (state.db, every profile), memories/, skills/, cron/ ' +
			'and credentials are files in the Hermes root: they survive an agent ' +
			'restart, and the rest depends on the filesystem above',
	);
	const {backupDirs, lastVerified} = backupOutlook(root, options, mounts, mount, layer, warnings);
	const stores: DoctorStore[] = [];
	for (const s of storesUnderRoot(root)) {
		stores.push(storeState(s, warnings));
	}

	return {
		root,
		mount,
		inContainer,
		containerHint,
		layer,
		config,
		survives,
		lost,
		backupDirs,
		lastVerified,
		stores,
		warnings,
		exitCode: warnings.length > 0 ? 1 : 0,
	};
}
