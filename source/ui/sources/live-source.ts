/**
 * What the TUI reads the live store through: the current model, its changes, one session's
 * detail, a forced re-read and (optionally) a pause.
 */
import type {LiveModel} from '../../live/live.js';
import type {SessionDetail} from '../../store/read/detail.js';
import type {MessageSpan} from '../../forensics/timeline/timeline-types.js';
import type {SourceListener} from '../screen/frame-gate.js';

export type LiveSource = {
	readonly model: LiveModel;
	subscribe: (listener: SourceListener<LiveModel>) => () => void;
	detail: (sessionId: string) => SessionDetail;
	refresh: (force?: boolean) => boolean;
	/** The messages of a chat's rows as spans, for the timeline view (a source without it shows none). */
	messageSpans?: (sessionIds: readonly string[], gapSeconds: number) => MessageSpan[];
	/** A source that can pause itself stops re-reading while paused (and counts what waits). */
	setPaused?: (paused: boolean) => void;
};
