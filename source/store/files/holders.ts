/**
 * Which processes hold the store's files, from /proc (Linux): open file descriptors by inode
 * (`/proc/<pid>/fd`) and POSIX locks (`/proc/locks`). Also the processes that still hold a deleted
 * `-wal`/`-shm` inode of this database: an old WAL generation that a restart or a restore would
 * split from (Hermes' DeletedWalGenerationError: docs/hermes-rules.md, wal-guards;
 * docs/scenarios.md, W7).
 *
 * Only stat/readlink of /proc entries: never opens the store's files.
 */
import fs from 'node:fs';
import path from 'node:path';
import {readForeignTextOrEmpty} from '../foreign-file.js';

export type StoreFileRole = 'db' | 'wal' | 'shm' | 'journal';

export type HeldFile = {
	role: StoreFileRole;
	fd: number;
	/** The link text: the path, with " (deleted)" when the name no longer points at this inode. */
	target: string;
	deleted: boolean;
};

export type LockEntry = {
	role: StoreFileRole;
	kind: string;
	access: 'READ' | 'WRITE';
	start: string;
	end: string;
};

export type Holder = {
	pid: number;
	command: string;
	cmdline: string;
	files: HeldFile[];
	locks: LockEntry[];
	/** Holds a deleted -wal or -shm of this database (an old WAL generation). */
	holdsDeletedWal: boolean;
};

export type HolderReport = {
	holders: Holder[];
	/** False when some processes' fd tables were not readable (not root): locks are still seen. */
	complete: boolean;
	unreadablePids: number;
	/** Processes in other PID namespaces (containers) are invisible from here. */
	method: 'proc' | 'unavailable';
};

type Identity = {role: StoreFileRole; dev: number; ino: number; path: string};

function identities(dbPath: string): Identity[] {
	const out: Identity[] = [];
	for (const [role, p] of [
		['db', dbPath],
		['wal', `${dbPath}-wal`],
		['shm', `${dbPath}-shm`],
		['journal', `${dbPath}-journal`],
	] as const) {
		try {
			// lstat: a sidecar that is a link is not this store's file (a process holding its target holds something else).
			const st = role === 'db' ? fs.statSync(p) : fs.lstatSync(p);
			if (!st.isFile()) {
				continue;
			}

			out.push({role, dev: st.dev, ino: st.ino, path: p});
		} catch {
			// absent sidecar
		}
	}

	return out;
}

/** Linux dev_t -> "MM:mm" as /proc/locks prints it (hex major:minor). */
export function procLocksDevice(dev: number): string {
	const d = BigInt(dev);
	const major = ((d >> 8n) & 0xfffn) | ((d >> 32n) & ~0xfffn);
	const minor = (d & 0xffn) | ((d >> 12n) & ~0xffn);
	return `${major.toString(16).padStart(2, '0')}:${minor.toString(16).padStart(2, '0')}`;
}

/** Parses /proc/locks lines: "1: POSIX  ADVISORY  READ 1234 fe:00:5678 128 128". */
export function parseProcLocks(text: string): Array<{
	pid: number;
	device: string;
	ino: number;
	kind: string;
	access: 'READ' | 'WRITE';
	start: string;
	end: string;
}> {
	const rows = [];
	for (const line of text.split('\n')) {
		const m =
			/^\d+:\s+(?:->\s+)?(\S+)\s+(\S+)\s+(READ|WRITE)\s+(-?\d+)\s+([\da-f]+:[\da-f]+):(\d+)\s+(\d+)\s+(\S+)/i.exec(
				line.trim(),
			);
		if (m) {
			rows.push({
				kind: `${m[1]} ${m[2]}`,
				access: m[3]!.toUpperCase() as 'READ' | 'WRITE',
				pid: Number(m[4]),
				device: m[5]!,
				ino: Number(m[6]),
				start: m[7]!,
				end: m[8]!,
			});
		}
	}

	return rows;
}

/** A /proc entry, bounded (a comm or cmdline is small; /proc/locks is one line per lock). */
function readText(p: string, maxBytes = 65_536): string {
	return readForeignTextOrEmpty(p, maxBytes);
}

/** The store's real path (SQLite opens a linked store at its target; /proc names the target). */
function realOf(dbPath: string): string {
	try {
		return fs.realpathSync(dbPath);
	} catch {
		return path.resolve(dbPath);
	}
}

const DELETED = ' (deleted)';

/** The holder of `pid`, made (its comm and cmdline read) the first time it is needed. */
function holderOf(holders: Map<number, Holder>, proc: string, pid: number): Holder {
	let h = holders.get(pid);
	if (!h) {
		h = {
			pid,
			command: readText(`${proc}/${pid}/comm`).trim() || '?',
			cmdline: readText(`${proc}/${pid}/cmdline`).split('\0').filter(Boolean).join(' '),
			files: [],
			locks: [],
			holdsDeletedWal: false,
		};
		holders.set(pid, h);
	}

	return h;
}

/** One store the walk looks for: its real path split for the link test, its files by inode, what is found. */
type Target = {
	dir: string;
	base: string;
	ids: Identity[];
	byInode: Map<string, Identity>;
	holders: Map<number, Holder>;
};

function targetOf(dbPath: string): Target {
	const absolute = realOf(dbPath);
	const ids = identities(absolute);
	return {
		dir: path.dirname(absolute),
		base: path.basename(absolute),
		ids,
		byInode: new Map(ids.map(i => [`${i.dev}:${i.ino}`, i])),
		holders: new Map(),
	};
}

/** Which of the store's files one `/proc/<pid>/fd/<n>` link (its text read once) names, or null. */
function heldRole(fdPath: string, linkText: string, t: Target): {role: StoreFileRole; deleted: boolean} | null {
	if (!linkText.startsWith(t.dir)) {
		return null;
	}

	const deleted = linkText.endsWith(DELETED);
	const name = path.basename(deleted ? linkText.slice(0, -DELETED.length) : linkText);
	if (!name.startsWith(t.base)) {
		return null;
	}

	let role: StoreFileRole | undefined;
	if (deleted) {
		const {base} = t;
		role = name === `${base}-wal` ? 'wal' : name === `${base}-shm` ? 'shm' : name === base ? 'db' : undefined;
	} else {
		try {
			const st = fs.statSync(fdPath);
			role = t.byInode.get(`${st.dev}:${st.ino}`)?.role;
		} catch {
			role = undefined;
		}
	}

	return role ? {role, deleted} : null;
}

/**
 * The files of every target that `pid` holds open, added to its holder there: each fd link read once, whatever the
 * number of stores. False when its fd table is unreadable (not when the process is gone).
 */
function scanFds(proc: string, pid: number, targets: readonly Target[]): boolean {
	let fds: string[];
	try {
		fds = fs.readdirSync(`${proc}/${pid}/fd`);
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'ENOENT';
	}

	for (const fd of fds) {
		const fdPath = `${proc}/${pid}/fd/${fd}`;
		let target: string;
		try {
			target = fs.readlinkSync(fdPath);
		} catch {
			continue;
		}

		for (const t of targets) {
			const held = heldRole(fdPath, target, t);
			if (!held) {
				continue;
			}

			const h = holderOf(t.holders, proc, pid);
			h.files.push({role: held.role, fd: Number(fd), target, deleted: held.deleted});
			if (held.deleted && (held.role === 'wal' || held.role === 'shm')) {
				h.holdsDeletedWal = true;
			}
		}
	}

	return true;
}

/** The POSIX locks /proc/locks lists on each target's files, added to their holders. */
function addLocks(proc: string, targets: readonly Target[], includeSelf: boolean): void {
	const text = readText(`${proc}/locks`, 16 * 1024 * 1024);
	const byDevice = targets.map(t => new Map(t.ids.map(i => [`${procLocksDevice(i.dev)}:${i.ino}`, i])));
	for (const lock of parseProcLocks(text)) {
		if ((lock.pid === process.pid && !includeSelf) || lock.pid <= 0) {
			continue;
		}

		targets.forEach((t, n) => {
			const id = byDevice[n]!.get(`${lock.device}:${lock.ino}`);
			if (id) {
				holderOf(t.holders, proc, lock.pid).locks.push({
					role: id.role,
					kind: lock.kind,
					access: lock.access,
					start: lock.start,
					end: lock.end,
				});
			}
		});
	}
}

export type HoldersOptions = {includeSelf?: boolean; procRoot?: string};

/**
 * The holders of several stores from one walk of /proc (every process's fd table read once, not once per store:
 * `hfx watch` over every profile of a root, #26), in the order of `dbPaths`.
 */
export function findHoldersOfAll(dbPaths: readonly string[], options: HoldersOptions = {}): HolderReport[] {
	const proc = options.procRoot ?? '/proc';
	const targets = dbPaths.map(targetOf);
	let pids: number[];
	try {
		pids = fs
			.readdirSync(proc)
			.filter(n => /^\d+$/.test(n))
			.map(Number);
	} catch {
		return targets.map(() => ({holders: [], complete: false, unreadablePids: 0, method: 'unavailable'}));
	}

	let unreadable = 0;
	for (const pid of pids) {
		if ((pid !== process.pid || options.includeSelf) && !scanFds(proc, pid, targets)) {
			unreadable++;
		}
	}

	addLocks(proc, targets, options.includeSelf ?? false);
	return targets.map(t => ({
		holders: [...t.holders.values()].sort((a, b) => a.pid - b.pid),
		complete: unreadable === 0,
		unreadablePids: unreadable,
		method: 'proc',
	}));
}

export function findHolders(dbPath: string, options: HoldersOptions = {}): HolderReport {
	return findHoldersOfAll([dbPath], options)[0]!;
}

/**
 * "pid 1234 (python3: hermes gateway run)"; hfx named for what it is: "pid 99 (hfx live view: node /…/hfx.js --db …)".
 */
export function describeHolder(h: Holder): string {
	const cmd = h.cmdline ? h.cmdline.slice(0, 80) : h.command;
	const roles = [
		...new Set([
			...h.files.map(f => (f.deleted ? `deleted ${f.role}` : f.role)),
			...h.locks.map(l => `${l.role} lock`),
		]),
	].join(', ');
	const role = hfxRole(h);
	return `pid ${h.pid} (${role ? `${role}: ` : ''}${cmd}) holds ${roles}`;
}

const baseName = (p: string): string => p.split('/').at(-1) ?? '';

/** True when the holder is hfx itself (its TUI, a watch, another command): its program or script is hfx or hfx.js. */
export function isHfx(h: Holder): boolean {
	const [program = '', script = ''] = h.cmdline.split(' ');
	return baseName(program) === 'hfx' || (/^node/.test(baseName(program)) && /^hfx(\.js)?$/.test(baseName(script)));
}

/**
 * What an hfx holder is, from its command line: `hfx watch`, `hfx repair`…, or, with no command
 * (`hfx [--db STORE]`, flags only), the hfx live view (the TUI). Null for any other process.
 */
export function hfxRole(h: Holder): string | null {
	if (!isHfx(h)) {
		return null;
	}

	const args = h.cmdline.split(' ');
	const command = args[baseName(args[0] ?? '') === 'hfx' ? 1 : 2];
	return command && /^[a-z][a-z-]{0,20}$/.test(command) ? `hfx ${command}` : 'hfx live view';
}

/** How one hfx holder lets go: the live view with q, a watch with Ctrl-C, any other command when it ends. */
function howHfxLetsGo(h: Holder): string {
	const role = hfxRole(h) ?? 'hfx';
	if (role === 'hfx live view' || role === 'hfx demo') {
		return `pid ${h.pid}: the ${role}, with q`;
	}

	return role === 'hfx watch' ? `pid ${h.pid}: hfx watch, with Ctrl-C` : `pid ${h.pid}: ${role}, or wait for it to end`;
}

/**
 * The next step for a store these processes hold, naming each for what it is: hfx's own TUI or
 * watch is not "the gateway", and stopping the gateway would not free it.
 */
export function stopHoldersStep(holders: readonly Holder[], then: string): string {
	const ours = holders.filter(h => isHfx(h));
	const steps: string[] = [];
	if (ours.length > 0) {
		steps.push(`quit hfx (${ours.map(howHfxLetsGo).join('; ')})`);
	}

	if (ours.length < holders.length) {
		steps.push(
			'stop the gateway and every Hermes process on this profile (hermes gateway stop; check with hfx doctor)',
		);
	}

	return `${steps.join(', and ')}, then ${then}`;
}
