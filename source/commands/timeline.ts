/**
 * `hfx timeline CHAT`: one chat's story on one time axis, rebuilt from the files (issue #23): its
 * rows and why each belongs, their messages as spans, rotations, the fork, the inferred restart
 * and resume, the routing entry's moves, the gateway's log lines, and what a restart now would do.
 * The chat is named by its session key, or by a session id (or suffix) of one of its rows.
 */
import {analyzeChats} from '../forensics/analyze.js';
import {chatNamed, timelineOfChat} from '../forensics/timeline-of-chat.js';
import type {Timeline} from '../forensics/timeline-types.js';
import {FailClosed, type ExitCode} from '../errors.js';
import {logNote, timelineJson, timelineLines} from '../report/timeline.js';
import {readMessageSpans} from '../store/chat-timeline.js';
import {type GatewayLogs, readGatewayLogs} from '../store/gateway-logs.js';
import {type DatabaseFacts, loadStore} from '../store/load.js';
import {type GlobalFlags, type Io, emit, guarded, locate} from './context.js';
import {wrapIndented} from '../text/wrap.js';

/** The text is wrapped for an 80-column terminal (a pipe or a log keeps the same lines). */
const WIDTH = 80;

export type TimelineFlags = GlobalFlags & {chat: string};

type Read = {facts: DatabaseFacts; timeline: Timeline; logs: GatewayLogs};

/** Loads the store, names the chat, and reads its spans on the same connection; the logs beside the store after. */
export function readTimeline(flags: TimelineFlags, io: Io): Read {
	const location = locate(flags, io).stores[0]!;
	let built: Omit<Read, 'facts' | 'logs'> | undefined;
	const logs = readGatewayLogs(location.path);
	const loaded = loadStore(location, {places: false, also(l, store) {
		const analysis = analyzeChats(l.snapshot, {maxGapSeconds: flags.maxGapSeconds});
		const named = chatNamed(analysis, flags.chat);
		if (!named.ok) {
			throw new FailClosed({file: l.facts.path, kind: 'no-such-key', reason: named.reason, next: named.next});
		}

		const spans = readMessageSpans(store, l.schema, named.rows.map(r => r.id), named.spanGapSeconds);
		built = {timeline: timelineOfChat(analysis, named, spans, logs.lines, Date.now() / 1000)};
	}});
	return {facts: loaded.facts, logs, timeline: built!.timeline};
}

export async function runTimeline(flags: TimelineFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, () => {
		const {facts, timeline, logs} = readTimeline(flags, io);
		emit(io, flags, {
			json: () => ({database: facts.path, owner: facts.owner, ruleSet: facts.ruleSet, logs: {dir: logs.dir, files: logs.files, notes: logs.notes}, ...timelineJson(timeline) as object}),
			*text() {
				yield* wrapIndented(`${facts.path} · profile ${facts.owner} · rule set ${facts.ruleSet} · read-only`, WIDTH, 2);
				yield* wrapIndented(logNote(logs), WIDTH, 2);
				yield* timelineLines(timeline, WIDTH);
			},
		});
		const rolledBack = timeline.events.some(e => e.kind === 'resume');
		return rolledBack || timeline.restartNow !== null ? 1 : 0;
	});
}
