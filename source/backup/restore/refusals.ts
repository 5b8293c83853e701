/**
 * The refusals before a restore writes anything (steps 2, 3, 5, 7 and 8 of restore.ts): unsafe
 * member names, a damaged archive, a target that would be written through a symlink or over a
 * folder, a process holding what would be replaced, and the typed confirmation.
 */
import fs from 'node:fs';
import path from 'node:path';
import {FailClosed, errnoWords, errorCode, errorMessage} from '../../ground/errors.js';
import {readForeign} from '../../store/foreign-file.js';
import type {RefusalKind} from '../../ground/refusal-kinds.js';
import {describeHolder, findHolders, stopHoldersStep} from '../../store/files/holders.js';
import {isPidAlive} from '../../ground/liveness.js';

import type {VerifyReport} from '../verify/verify.js';
import {onlyNoStore} from '../verify/report.js';
import {judgeMembers} from '../archive/member-policy.js';
import {type OpenedZip, type Problem, openZip} from '../archive/zipread.js';
import {plural} from '../../text/format.js';
import type {SourceMember, PlannedMember} from './types.js';

export function refuse(file: string, kind: RefusalKind, reason: string, next: string): FailClosed {
	return new FailClosed({file, kind, reason: `${reason}; nothing was written`, next, exitCode: 2});
}

/** 2. The member policy (archive/member-policy.ts) over every member, sidecars included, before anything else. */
export async function refuseUnsafeMembers(archive: string): Promise<void> {
	let z: OpenedZip | undefined;
	try {
		z = await openZip(archive);
		const findings = judgeMembers(z.members.map(m => ({name: m.name, type: m.type, size: m.entry.uncompressedSize})));
		const first = findings[0];
		if (first) {
			const more = findings.length > 1 ? ` (+${findings.length - 1} more: hfx verify lists them)` : '';
			throw refuse(
				archive,
				'unsafe-member',
				`member ${JSON.stringify(first.name)} is refused: ${first.what.replace(/^unsafe member: /, '')}${more}`,
				'do not extract this archive; take it apart by hand only in a scratch folder',
			);
		}
	} catch (error) {
		if (error instanceof FailClosed) {
			throw error;
		}
	} finally {
		z?.close();
	}
}

/**
 * 3. A damaged archive writes nothing: refuses with the first problem the verify found (save those `tolerated`: a tar's
 * sidecars).
 */
export function refuseDamaged(
	archive: string,
	report: VerifyReport,
	tolerated: (p: Problem) => boolean = () => false,
): void {
	const problems = report.problems.filter(p => !tolerated(p));
	const badDbs = report.databases.filter(d => !d.ok);
	if (report.status !== 'unreadable' && onlyNoStore({problems, databases: badDbs})) {
		throw refuse(
			archive,
			'no-hermes-root',
			'no Hermes root in the archive (no state.db and no profiles/*/state.db ' +
				'in any folder): not a backup of a Hermes home',
			`check what it holds (hfx verify ${archive}); restore a backup that holds state.db (hfx backups)`,
		);
	}

	if (report.status === 'unreadable' || problems.length > 0 || badDbs.length > 0) {
		const first =
			problems[0] ??
			(badDbs[0] ? {where: badDbs[0].path, what: badDbs[0].problems.join('; ')} : {where: archive, what: 'unknown'});
		throw refuse(
			archive,
			'archive-damaged',
			`the archive is ${report.status} ` +
				`(${plural(problems.length + badDbs.length, 'problem')}; ` +
				`first: ${first.where}: ${first.what})`,
			`run hfx verify ${archive} for the full list, and restore from another backup (hfx backups)`,
		);
	}
}

/** The target checks: where each member lands, refused outside the target, through a link or over a folder. */
export function planTargets(archive: string, target: string, members: SourceMember[]): PlannedMember[] {
	if (fs.existsSync(target) && !fs.statSync(target).isDirectory()) {
		throw refuse(
			target,
			'not-a-folder',
			'the restore target is not a folder',
			'pass a folder with --to DIR or --home DIR',
		);
	}

	return members.map(m => {
		const dest = path.join(target, ...m.path.split('/'));
		const rel = path.relative(target, dest);
		if (rel.startsWith('..') || path.isAbsolute(rel)) {
			throw refuse(
				archive,
				'unsafe-member',
				`member ${JSON.stringify(m.path)} would land outside the target`,
				'do not extract this archive',
			);
		}

		const link = linkOnTheWay(target, dest);
		if (link) {
			throw refuse(
				link,
				'symlink-in-target',
				'the restore would write through this symbolic link',
				'replace the link by a real folder, or restore into another folder with --to DIR',
			);
		}

		let exists = false;
		try {
			const st = fs.lstatSync(dest);
			if (st.isDirectory()) {
				throw refuse(
					dest,
					'target-is-folder',
					`a folder stands where the archive has the file ${m.path}`,
					'move that folder aside, or restore into another folder with --to DIR',
				);
			}

			exists = true;
		} catch (error) {
			if (error instanceof FailClosed) {
				throw error;
			}
		}

		return {m, dest, exists};
	});
}

/** The pre-restore copies go to <target>/backups/: refused up front when that is a link or not a folder. */
export function refuseLinkedBackups(target: string): void {
	const backups = path.join(target, 'backups');
	let st: fs.Stats;
	try {
		st = fs.lstatSync(backups);
	} catch {
		return;
	}

	if (st.isSymbolicLink() || !st.isDirectory()) {
		throw refuse(
			backups,
			'symlink-in-target',
			`the pre-restore copies (the current state.db and credentials) would be ` +
				`written ` +
				`through ${st.isSymbolicLink() ? 'this symbolic link' : 'this, which is not a folder'}`,
			'make it a real folder (or move it aside), then run the restore again',
		);
	}
}

/**
 * Just before the commit (staging took time): no path a member lands on may have become a
 * symbolic link since it was planned; a refusal here still writes nothing.
 */
export function refuseLinksSincePlanned(target: string, plan: PlannedMember[]): void {
	for (const p of plan) {
		const link = linkOnTheWay(target, p.dest);
		if (link) {
			throw refuse(
				link,
				'symlink-in-target',
				'this became a symbolic link while the restore was staging its files',
				'find out what replaced it, make it a real folder or file, then run the restore again',
			);
		}
	}
}

/** Every folder between `root` (exclusive) and `dest` must be a real folder, never a symlink. */
function linkOnTheWay(root: string, dest: string): string | null {
	const rel = path.relative(root, dest).split(path.sep);
	let cur = root;
	for (const part of rel) {
		cur = path.join(cur, part);
		try {
			const st = fs.lstatSync(cur);
			if (st.isSymbolicLink()) {
				return cur;
			}
		} catch {
			return null;
		}
	}

	return null;
}

/** Refuses while anything holds a database we would replace (or holds an old WAL generation of it). */
export function assertNoHolders(target: string, dbRels: string[]): void {
	for (const rel of dbRels) {
		const dest = path.join(target, rel);
		const report = findHolders(dest);
		const holders = report.holders;
		if (holders.length > 0) {
			const deleted = holders.some(h => h.holdsDeletedWal);
			const more = holders.length > 1 ? ` (+${holders.length - 1} more)` : '';
			const why = deleted
				? ': a process still holds a deleted -wal of this database (an old WAL generation); ' +
					'a restore now would split it'
				: '';
			throw refuse(
				dest,
				deleted ? 'deleted-wal-held' : 'in-use',
				`${describeHolder(holders[0]!)}${more}${why}`,
				stopHoldersStep(holders, 'run the restore again'),
			);
		}
	}

	const homes = new Set(dbRels.map(rel => path.dirname(path.join(target, rel))));
	homes.add(target);
	for (const home of homes) {
		for (const pidFile of ['gateway.pid', 'cron.pid']) {
			const text = pidFileText(path.join(home, pidFile));
			const pid = Number(/\d+/.exec(text ?? '')?.[0]);
			if (pid && pid !== process.pid && isPidAlive(pid)) {
				throw refuse(
					path.join(home, pidFile),
					'gateway-running',
					`process ${pid} named in it is running`,
					'stop the gateway first (hermes gateway stop), then run the restore again',
				);
			}
		}
	}
}

/**
 * A pid file's text, or null when there is none. Read non-blocking and bounded (a FIFO there would
 * hang the restore); one that exists but cannot be read is a refusal: whether the gateway runs
 * cannot be told, and a restore under a running gateway is what this check exists to stop.
 */
function pidFileText(file: string): string | null {
	try {
		return readForeign(file, {maxBytes: 4096, what: 'it as a pid file'}).bytes.toString('utf8');
	} catch (error) {
		if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') {
			return null;
		}

		const cause =
			error instanceof FailClosed ? error.reason : errnoWords(errorCode(error) ?? 'error', errorMessage(error)).cause;
		throw refuse(
			file,
			'gateway-running',
			`it cannot be read (${cause}), so whether the gateway runs cannot be told`,
			'stop the gateway (hermes gateway stop), make the pid file a readable ' +
				'regular file or remove it, then run the restore again',
		);
	}
}

/** 8. Confirmation when anything would be replaced (or the target is not empty): typed, or --yes. */
export async function confirmReplace(
	archive: string,
	target: string,
	plan: PlannedMember[],
	options: {yes?: boolean; confirm?: (question: string) => Promise<boolean>; drops?: string[]; now?: () => Date},
): Promise<void> {
	const replacing = plan.filter(p => p.exists).length;
	const occupied = fs.existsSync(target) && fs.readdirSync(target).length > 0;
	if ((replacing > 0 || occupied) && !options.yes) {
		// The pre-restore folder is made at the commit, named for that second (-1, -2… when another restore took it): the
		// prompt cannot know it yet, so it says how it will be named; the result names it (issue #28 point 5).
		const pre = path.join(target, 'backups', 'pre-restore-<UTC time of the write>');
		const drops = (options.drops ?? []).map(d => `\n  ${d}`).join('');
		const question =
			`restore ${path.basename(archive)} over ${target}:${drops}\n ` +
			` ${plural(replacing, 'existing file')} will be replaced; the current ` +
			`ones are kept in a new folder ${pre} (named when done). Type "restore" ` +
			`to go on: `;
		if (!options.confirm) {
			throw refuse(
				target,
				'needs-confirmation',
				`${plural(replacing, 'existing file')} would be replaced and no confirmation was given`,
				'run it again in a terminal to confirm, or add --yes once the gateway is stopped',
			);
		}

		if (!(await options.confirm(question))) {
			throw refuse(
				target,
				'not-confirmed',
				'the restore was not confirmed',
				'run it again and type "restore" to confirm',
			);
		}
	}
}
