/**
 * The Backups pane's source: the archives and quick snapshots of one Hermes root, every
 * profile's, exactly as `hfx backups` lists them (homeBackups: the same entries, each archive
 * placed by identity, the same verdicts; --profile keeps that profile's snapshots), and verify,
 * drill and quick snapshot (of the focused profile) run as `hfx …` child processes (run-cli.ts)
 * so the screen never waits on their disk and CPU work. One action at a time; its progress is
 * the model's `busy` line, its outcome the `last` line, and the list is read again when it ends.
 */
import path from 'node:path';
import {defaultBackupDir} from '../../backup/create/backup.js';
import {type BackupEntry, homeBackups} from '../../backup/ops/list.js';
import {PHASE_WORDS, type ProgressEvent} from '../../backup/progress.js';
import {type CliRun, runCli} from '../../backup/ops/run-cli.js';
import type {BackupsModel, BackupsSource} from './backups-model.js';

/**
 * The pane's source as the host holds it: the TUI's BackupsSource (backups-model.ts), which it can also re-read and
 * close.
 */
export type PaneBackupsSource = BackupsSource & {
	/** Reads the list again (archives written by another process appear). */
	refresh: () => void;
	/** Stops a running child (its temps are the next run's sweep) and the listeners. */
	close: () => void;
};

export type PaneSourceOptions = {
	/** The Hermes root whose backups/ and [profiles/*\/]state-snapshots/ are listed. */
	root: string;
	/** The profile the TUI watches: a quick snapshot is of its store. */
	profile: string;
	/** On a root with profiles, the profile focused now: S snapshots its store (default: `profile`). */
	focused?: () => string;
	/**
	 * --profile: only that profile's snapshots are listed (the archives hold every profile), as `hfx backups --profile`
	 * lists them.
	 */
	only?: string | null;
	/** Archive folders (default <root>/backups). */
	dirs?: string[];
	/** The child runner (run-cli.ts); tests may pass an env. */
	env?: NodeJS.ProcessEnv;
	/** How often the list is read again for backups made elsewhere (cron, the CLI); 0 never. Default 30 s. */
	rereadMs?: number;
};

/** The list without its ages (they move every second): what tells whether a re-read changed anything. */
function listKey(entries: readonly BackupEntry[]): string {
	return JSON.stringify(entries.map(e => ({...e, ageSeconds: null})));
}

/** The Hermes root of a store: its folder, or the root above profiles/<name>/ for a profile's store. */
export function rootOfStore(dbPath: string, owner: string): string {
	const home = path.dirname(path.resolve(dbPath));
	const parent = path.dirname(home);
	return owner !== 'default' && path.basename(parent) === 'profiles' && path.basename(home) === owner
		? path.dirname(parent)
		: home;
}

function percent(e: ProgressEvent): string {
	return e.total > 0 ? `${Math.min(100, Math.round((e.done / e.total) * 100))}% ` : '';
}

/** One line of progress: "verifying hfx-backup-….zip: 42% checking members state.db". */
export function progressLine(doing: string, e: ProgressEvent): string {
	return `${doing}: ${percent(e)}${PHASE_WORDS[e.phase] ?? e.phase} ${e.label}`;
}

type Json = Record<string, unknown>;

function firstProblem(j: Json): string {
	const problems = Array.isArray(j.problems) ? (j.problems as unknown[]) : [];
	const p = problems[0];
	return p === undefined ? '' : `: ${typeof p === 'string' ? p : JSON.stringify(p)}`;
}

/** What a child run ended with, in one line (its JSON when it printed one, else its last stderr line). */
export function outcomeLine(action: 'verify' | 'drill' | 'snapshot', name: string, run: CliRun): string {
	const j = run.json && typeof run.json === 'object' ? (run.json as Json) : null;
	if (!j) {
		return (
			`✗ ${action} ${name} did not finish ` +
			`(exit ${run.code})${run.stderr.length > 0 ? `: ${run.stderr.at(-1)}` : ''}`
		);
	}

	if (action === 'verify') {
		return j.status === 'sound'
			? `✓ verified ${name}: sound${liveNote(j.live)}`
			: `✗ verify ${name}: ${String(j.status).toUpperCase()}${firstProblem(j)}`;
	}

	if (action === 'drill') {
		return j.ok === true
			? `✓ drill passed ${name}: ${String(j.restored)} files restored into a scratch folder and checked`
			: `✗ drill FAILED ${name}${firstProblem(j)}`;
	}

	const id = typeof j.id === 'string' ? j.id : String(j.snapshot);
	return j.verified === true && run.code === 0
		? `✓ quick snapshot ${id} taken and verified`
		: `✗ quick snapshot ${id} (exit ${run.code})${firstProblem(j)}`;
}

/**
 * A tar of a running volume: what `hfx verify --json` says of its -wal and sidecars, short enough for the pane's line.
 */
function liveNote(value: unknown): string {
	const live = Array.isArray(value)
		? (value.filter(
				l => l && typeof l === 'object' && Number.isSafeInteger(l.commits) && Array.isArray(l.sidecars),
			) as Array<{commits: number; sidecars: string[]}>)
		: [];
	const commits = live.reduce((n, l) => n + l.commits, 0);
	return live.length > 0
		? ` (taken live: ${commits} -wal ${commits === 1 ? 'commit' : 'commits'} a restore folds; sidecars never restored)`
		: '';
}

type Job = {action: 'verify' | 'drill' | 'snapshot'; name: string; doing: string; args: string[]};

function jobFor(action: Job['action'], target: string | null, options: PaneSourceOptions): Job {
	if (action === 'snapshot') {
		const of = options.focused?.() ?? options.profile;
		const profile = of === 'default' ? [] : ['--profile', of];
		return {
			action,
			name: of,
			doing: `taking a quick snapshot of ${of}`,
			args: ['backup', '--quick', '--home', options.root, ...profile, '--label', 'tui'],
		};
	}

	const name = path.basename(target!);
	return action === 'verify'
		? {action, name, doing: `verifying ${name}`, args: ['verify', target!]}
		: {action, name, doing: `drilling ${name}`, args: ['restore', '--drill', target!]};
}

function readList(root: string, dirs: string[], profile: string | null): Partial<BackupsModel> {
	try {
		return {entries: homeBackups({root, dirs, now: Date.now() / 1000, profile})};
	} catch (error) {
		return {last: `✗ could not list the backups under ${root}: ${(error as Error).message}`};
	}
}

/** Runs one job's child; resolves with its outcome line (never rejects). */
async function runJob(job: Job, options: Parameters<typeof runCli>[1]): Promise<string> {
	try {
		return outcomeLine(job.action, job.name, await runCli(job.args, options));
	} catch (error) {
		return `✗ ${job.doing}: ${(error as Error).message}`;
	}
}

/** The production source of the Backups pane; the list is read once now, again after each action and on refresh(). */
export function backupsPaneSource(options: PaneSourceOptions): PaneBackupsSource {
	const listeners = new Set<(model: BackupsModel) => void>();
	const abort = new AbortController();
	const dirs = options.dirs ?? [defaultBackupDir(options.root)];
	let model: BackupsModel = {entries: [], busy: null, last: null, root: options.root};
	const set = (change: Partial<BackupsModel>): void => {
		model = {...model, ...change};
		source.model = model;
		for (const l of listeners) {
			l(model);
		}
	};

	const read = (): Partial<BackupsModel> => readList(options.root, dirs, options.only ?? null);

	const start = (action: Job['action'], target: string | null): void => {
		if (abort.signal.aborted) {
			return;
		}

		if (model.busy) {
			set({last: `one at a time: ${model.busy}`});
			return;
		}

		const job = jobFor(action, target, options);
		set({busy: `${job.doing}…`, last: null});
		void runJob(job, {
			env: options.env,
			signal: abort.signal,
			onProgress: e => set({busy: progressLine(job.doing, e)}),
		}).then(last => {
			if (!abort.signal.aborted) {
				set({...read(), busy: null, last});
			}
		});
	};

	const source: PaneBackupsSource = {
		model,
		subscribe(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		verify: p => start('verify', p),
		drill: p => start('drill', p),
		snapshot: () => start('snapshot', null),
		refresh() {
			const next = read();
			if (!next.entries || listKey(next.entries) !== listKey(model.entries)) {
				set(next);
			}
		},
		close() {
			clearInterval(timer);
			listeners.clear();
			abort.abort();
		},
	};
	set(read());
	const timer = options.rereadMs === 0 ? undefined : setInterval(() => source.refresh(), options.rereadMs ?? 30_000);
	timer?.unref();
	return source;
}
