/**
 * `hfx timeline CHAT`: one chat's story on one time axis, rebuilt from the files (issue #23): its
 * rows and why each belongs, their messages as spans, rotations, the fork, the inferred restart
 * and resume, the routing entry's moves, the gateway's log lines, and what a restart now would do.
 * The chat is named by its session key, or by a session id (or suffix) of one of its rows.
 */
import {analyzeChats} from '../../forensics/analysis/analyze.js';
import {chatNamed, timelineOfChat} from '../../forensics/timeline/timeline-of-chat.js';
import {beforeImageEvents, withBeforeImage} from '../../forensics/timeline/timeline-before.js';
import type {Timeline} from '../../forensics/timeline/timeline-types.js';
import {FailClosed, type ExitCode} from '../../ground/errors.js';
import {type TimelineBefore, logNote, timelineLines, timelineReportJson} from '../../report/sessions/timeline.js';
import {readMessageSpans} from '../../store/read/chat-timeline.js';
import {type GatewayLogs, readGatewayLogs} from '../../store/places/gateway-logs.js';
import {type DatabaseFacts, loadStore} from '../../store/read/load.js';
import {takenAtByName} from '../../store/places/before-images.js';
import {diffPair} from '../shared/image-sides.js';
import {type GlobalFlags, type Io, emit, guarded, locate} from '../context.js';
import {wrapIndented} from '../../text/wrap.js';

/** The text is wrapped for an 80-column terminal (a pipe or a log keeps the same lines). */
const WIDTH = 80;

export type TimelineFlags = GlobalFlags & {chat: string; before?: string};

type Read = {facts: DatabaseFacts; timeline: Timeline; logs: GatewayLogs};

/** Loads the store, names the chat, and reads its spans on the same connection; the logs beside the store after. */
export function readTimeline(flags: TimelineFlags, io: Io): Read {
	const location = locate(flags, io).stores[0]!;
	let built: Omit<Read, 'facts' | 'logs'> | undefined;
	const logs = readGatewayLogs(location.path);
	const loaded = loadStore(location, {
		columns: 'lean',
		places: false,
		also(l, store) {
			const analysis = analyzeChats(l.snapshot, {maxGapSeconds: flags.maxGapSeconds});
			const named = chatNamed(analysis, flags.chat);
			if (!named.ok) {
				throw new FailClosed({file: l.facts.path, kind: 'no-such-key', reason: named.reason, next: named.next});
			}

			const spans = readMessageSpans(
				store,
				l.schema,
				named.rows.map(r => r.id),
				named.spanGapSeconds,
			);
			built = {timeline: timelineOfChat(analysis, named, spans, logs.lines, Date.now() / 1000)};
		},
	});
	return {facts: loaded.facts, logs, timeline: built!.timeline};
}

/** The before-image compared with the store as `hfx diff IMAGE STORE` compares them, and its event on the axis. */
async function placeBefore(
	flags: TimelineFlags,
	storePath: string,
	timeline: Timeline,
): Promise<{timeline: Timeline; before: TimelineBefore | null}> {
	if (flags.before === undefined) {
		return {timeline, before: null};
	}

	const pair = await diffPair(flags.before, storePath, flags);
	const image = {
		path: pair.sides.a.path,
		kind: pair.sides.a.kind,
		takenAt: pair.sides.a.takenAt ?? takenAtByName(pair.sides.a.path),
	};
	const events = beforeImageEvents(timeline.sessionKey, image, pair.diff);
	const before = {
		image,
		chat: pair.diff.chats.find(c => c.sessionKey === timeline.sessionKey) ?? null,
		routing: pair.diff.routing.filter(m => m.sessionKey === timeline.sessionKey),
		placed: events.length > 0,
	};
	return {timeline: withBeforeImage(timeline, events), before};
}

export async function runTimeline(flags: TimelineFlags, io: Io): Promise<ExitCode> {
	return guarded(io, flags, async () => {
		const read = readTimeline(flags, io);
		const {facts, logs} = read;
		const {timeline, before} = await placeBefore(flags, facts.path, read.timeline);
		emit(io, flags, {
			json: () => timelineReportJson(facts, logs, before, timeline),
			*text() {
				yield* wrapIndented(`${facts.path} · profile ${facts.owner} · rule set ${facts.ruleSet} · read-only`, WIDTH, 2);
				yield* wrapIndented(logNote(logs), WIDTH, 2);
				if (before && !before.placed) {
					yield* wrapIndented(
						`before-image ${before.image.path}: it holds no message of this chat and ` +
							`does not say when it was taken, so it is not on the axis (hfx diff ` +
							`compares it whole)`,
						WIDTH,
						2,
					);
				}

				yield* timelineLines(timeline, WIDTH);
			},
		});
		const rolledBack = timeline.events.some(e => e.kind === 'resume');
		return rolledBack || timeline.restartNow !== null ? 1 : 0;
	});
}
