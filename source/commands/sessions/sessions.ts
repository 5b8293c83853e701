/**
 * `hfx sessions`: the session table, newest activity first.
 */
import type {Analysis} from '../../forensics/analysis/analyze.js';
import {isHiddenByDefault, statusIndex} from '../../forensics/analysis/status.js';
import {lastActive} from '../../forensics/time.js';
import type {SessionRecord} from '../../forensics/types.js';
import type {ExitCode} from '../../ground/errors.js';
import {type GlobalFlags, type Io, emit, guarded, loadOne} from '../context.js';
import {sessionLines, sessionsJson} from '../../report/sessions/sessions.js';

export type SessionsFlags = GlobalFlags & {source?: string; limit: number; all: boolean};

/** Newest activity first; sessions without a usable time last. */
export function byNewestActivity(a: SessionRecord, b: SessionRecord): number {
	return (lastActive(b) ?? -1) - (lastActive(a) ?? -1) || (a.id < b.id ? 1 : -1);
}

export function selectSessions(analysis: Analysis, options: {source?: string; all: boolean}): SessionRecord[] {
	return analysis.snapshot.sessions
		.filter(s => options.all || !isHiddenByDefault(s))
		.filter(s => !options.source || s.source === options.source)
		.sort(byNewestActivity);
}

export async function runSessions(flags: SessionsFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, () => {
		const {result} = loadOne(flags, io);
		const {analysis} = result;
		const index = statusIndex(analysis);
		const all = selectSessions(analysis, flags);
		const rows = flags.limit > 0 ? all.slice(0, flags.limit) : all;
		emit(io, flags, {
			json: () => sessionsJson(result.facts, all.length, rows, analysis, index),
			text: () => sessionLines(rows, all.length, analysis, index, flags.limit),
		});
		return 0;
	});
}
