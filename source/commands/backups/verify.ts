/**
 * `hfx verify ARCHIVE|SNAPSHOT [--json]`: every byte and every database of a backup.
 * Exit 0 sound, 1 damaged (what and where), 2 unreadable.
 */
import {progressSink} from '../../backup/progress.js';
import {type VerifyReport, recordVerification, verifyArtifact} from '../../backup/verify/verify.js';
import {onlyNoStore} from '../../backup/verify/report.js';
import {humanVerify, nextStep, verifyJson} from '../../report/backups/verify.js';
import {type ExitCode, refusalLine} from '../../ground/errors.js';
import {failIfAbandoned} from '../shared/backup-root.js';
import {type GlobalFlags, type Io, emit, guarded} from '../context.js';

export type VerifyFlags = GlobalFlags & {target: string};

export async function runVerify(flags: VerifyFlags, io: Io): Promise<ExitCode> {
	failIfAbandoned(io);
	return guarded(io, flags, async () => {
		const bar = progressSink();
		let report: VerifyReport;
		try {
			// The inventory names each store's newest sessions in the record: whose home an archive without a manifest is.
			report = await verifyArtifact(flags.target, {onProgress: bar?.update, inventory: true});
		} finally {
			bar?.clear();
		}

		const recorded = recordVerification(report);
		// An artifact that cannot be read at all is a refusal: its one line below, not a report too.
		emit(io, flags, {
			json: () => verifyJson(report, recorded),
			text: () => (report.exitCode === 2 ? [] : humanVerify(report)),
		});

		if (report.exitCode !== 0) {
			const first =
				report.problems[0] ??
				(() => {
					const d = report.databases.find(x => !x.ok);
					return d ? {where: d.path, what: d.problems.join('; ')} : {where: report.path, what: report.status};
				})();
			io.err(
				refusalLine({
					file: report.path,
					reason: onlyNoStore(report) ? first.what : `${report.status} (${first.where}: ${first.what})`,
					next: nextStep(report),
				}),
			);
		}

		return report.exitCode;
	});
}
