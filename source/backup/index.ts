/**
 * The backup side's API, for the TUI's Backups pane and the repair feature.
 *
 *   listBackups({root, dirs, now})            archives + snapshots with age, size, verified, drilled
 *   verifyAndRecord(path, {onProgress})        full verify, outcome appended to the records
 *   drillArchive({archive, onProgress})        restore into scratch, scan, compare, record, clean up
 *   takeQuickSnapshot({dbPath | home, label, onProgress}) -> {dir, manifest, verified, ...}
 *                                              (the repair feature: refuse to write unless verified)
 *   createBackup({root, output, keep, onProgress})
 *   checkGate({dirs, maxAgeSeconds, now})      what `hfx gate` decides
 *   runDoctor({root, backupDirs, now})         what `hfx doctor` reports
 *   runCli(args, {onProgress})                 the same in a child process (`hfx … --json` with
 *                                              HFX_PROGRESS=json), progress streamed back
 *
 * All of them may run in a process that holds a read-only connection to the live store (the
 * TUI): none reads the store's bytes with fs (the preflight reuses the header of a live
 * connection, H3); the copy is a second read-only connection. They do CPU and disk work on the
 * caller's event loop between awaits (the integrity check runs in a worker thread when the
 * compiled worker exists), so a TUI that must stay responsive during a large backup may prefer
 * runCli. restoreArchive stays on the command line (a stopped gateway, a typed confirmation).
 */
import {spawn} from 'node:child_process';
import readline from 'node:readline';
import {type ProgressFn, parseProgressLine} from './progress.js';
import {type VerifyOptions, type VerifyReport, recordVerification, verifyArtifact} from './verify.js';
import {distFile} from '../paths.js';

export {type BackupOptions, type BackupResult, createBackup, defaultBackupDir} from './backup.js';
export {type DoctorReport, runDoctor} from './doctor.js';
export {type DrillResult, drillArchive} from './drill.js';
export {DEFAULT_MAX_AGE_SECONDS, type GateResult, checkGate, parseDuration} from './gate.js';
export {type BackupEntry, listBackups} from './list.js';
export type {Manifest, QuickManifest} from './manifest.js';
export type {ProgressEvent, ProgressFn} from './progress.js';
export {type QuickSnapshotOptions, type QuickSnapshotResult, takeQuickSnapshot} from './snapshot.js';
export {type VerifyReport, verifyArtifact} from './verify.js';

/** verify + record the outcome beside the artifact (what `hfx verify` does). */
export async function verifyAndRecord(p: string, options: VerifyOptions = {}): Promise<VerifyReport & {recorded: boolean}> {
	const report = await verifyArtifact(p, options);
	return {...report, recorded: recordVerification(report)};
}

function cliPath(): string {
	return distFile('hfx.js');
}

export type CliRun = {code: number; json: unknown; stderr: string[]};

/**
 * Runs `hfx <args> --json` in a child process with HFX_PROGRESS=json, calling onProgress for
 * each progress event; resolves with the exit code and the parsed JSON. For the TUI:
 *   runCli(['backup', '--quick', '--home', root, '--label', 'tui'], {onProgress})
 *   runCli(['backup', '--home', root], {onProgress})
 */
export async function runCli(args: string[], options: {onProgress?: ProgressFn; env?: NodeJS.ProcessEnv; signal?: AbortSignal} = {}): Promise<CliRun> {
	const child = spawn(process.execPath, [cliPath(), ...args, '--json'], {
		stdio: ['ignore', 'pipe', 'pipe'],
		env: {...process.env, ...options.env, HFX_PROGRESS: 'json', NO_COLOR: '1'},
		signal: options.signal,
	});
	let stdout = '';
	child.stdout.on('data', (d: Buffer) => {
		stdout += d.toString();
	});
	const stderr: string[] = [];
	readline.createInterface({input: child.stderr}).on('line', line => {
		const e = parseProgressLine(line);
		if (e) {
			options.onProgress?.(e);
		} else if (line.trim()) {
			stderr.push(line);
		}
	});
	const code = await new Promise<number>((resolve, reject) => {
		child.once('error', reject);
		child.once('close', c => resolve(c ?? 2));
	});
	let json: unknown = null;
	try {
		json = stdout.trim() ? JSON.parse(stdout) : null;
	} catch {
		json = null;
	}

	return {code, json, stderr};
}
