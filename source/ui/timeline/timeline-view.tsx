/**
 * The timeline view (T from a chat, an orphan, a finding or a session): the chat's rows and events
 * on one time axis, the same lines `hfx timeline CHAT` prints, wrapped to the terminal's width and
 * rebuilt whenever the store changes (a second process writing while it is open). The title and the
 * footer stay; the lines between them scroll (j/k, C-d/C-u, g/G); Esc returns to the pane.
 */
import type React from 'react';
import {useMemo, useRef, useState} from 'react';
import {Box, useStdin} from 'ink';
import type {LiveModel} from '../../live/live.js';
import {chatNamed, timelineOfChat} from '../../forensics/timeline/timeline-of-chat.js';
import {logNote, timelineLines} from '../../report/sessions/timeline.js';
import {wrapIndented} from '../../text/wrap.js';
import {type GatewayLogs, readGatewayLogs} from '../../store/places/gateway-logs.js';
import {errorMessage} from '../../ground/errors.js';
import {Text} from '../components/text.js';
import {useLatestInput} from '../hooks.js';
import {press} from '../keys/binding.js';
import type {TimelineKeys} from '../keys/contexts.js';
import {splitBurst} from '../keys/key-event.js';
import {footerHints, timelineBinding} from '../keys/lookup.js';
import type {LiveSource} from '../sources/live-source.js';
import {clampScroll, scrollIndicator} from '../repair/repair-flow-state.js';
import {useTheme} from '../theme.js';

export type TimelineViewProps = {
	chat: string;
	live: LiveSource;
	model: LiveModel;
	now: number;
	width: number;
	height: number;
	onClose: () => void;
	onQuit: () => void;
};

type Built = {title: string; lines: string[]; problem: boolean};

/** The lines of the chat's timeline on this model, or why there is none. */
function build(
	chat: string,
	props: Pick<TimelineViewProps, 'live' | 'model' | 'now' | 'width'>,
	logs: GatewayLogs | null,
): Built {
	const named = chatNamed(props.model.analysis, chat);
	if (!named.ok) {
		return {title: `timeline of ${chat}`, lines: [named.reason, `next: ${named.next}`], problem: true};
	}

	try {
		const spans =
			props.live.messageSpans?.(
				named.rows.map(r => r.id),
				named.spanGapSeconds,
			) ?? [];
		const t = timelineOfChat(props.model.analysis, named, spans, logs?.lines ?? [], props.now);
		const note = logs ? wrapIndented(logNote(logs), props.width, 2) : [];
		return {
			title: `timeline of ${named.sessionKey}`,
			lines: [...timelineLines(t, props.width).slice(1), '', ...note],
			problem: false,
		};
	} catch (error) {
		return {
			title: `timeline of ${named.sessionKey}`,
			lines: [
				`the store could not be read for the timeline: ${errorMessage(error)}`,
				'next: C-l in the pane re-reads the store; or run hfx timeline from a shell',
			],
			problem: true,
		};
	}
}

/** The logs beside the store, read once when the view opens (the store is what changes while it is open). */
function useLogs(path: string): GatewayLogs | null {
	return useMemo(() => {
		try {
			return readGatewayLogs(path);
		} catch {
			return null;
		}
	}, [path]);
}

export function TimelineView(props: TimelineViewProps): React.ReactElement {
	const theme = useTheme();
	const {isRawModeSupported} = useStdin();
	const logs = useLogs(props.model.facts.path);
	// biome-ignore lint/correctness/useExhaustiveDependencies: the model's revision stands for what build reads of it
	const built = useMemo(() => build(props.chat, props, logs), [props.chat, props.model.revision, props.width, logs]);
	const [scroll, setScroll] = useState(0);
	const view = Math.max(1, props.height - 2);
	const bottom = Math.max(0, built.lines.length - view);
	const keys: TimelineKeys = {
		notice: () => undefined,
		close: props.onClose,
		quit: props.onQuit,
		half: Math.max(1, Math.floor(view / 2)),
		scroll: by => setScroll(s => (by === 'top' ? 0 : by === 'bottom' ? bottom : Math.max(0, Math.min(bottom, s + by)))),
	};
	const current = useRef(keys);
	current.current = keys;
	useLatestInput(
		(input, key) => {
			for (const k of splitBurst({...key, input})) {
				const binding = timelineBinding(k);
				if (binding) {
					press(binding, current.current, k);
				}

				if (!binding?.continuesBurst) {
					return;
				}
			}
		},
		{isActive: isRawModeSupported},
	);

	const first = clampScroll(scroll, built.lines.length, view);
	const where = scrollIndicator(first, built.lines.length, view);
	const hint = footerHints({pane: 'routing', overlay: 'timeline'}, keys)
		.map(h => h.text)
		.join('  ');
	return (
		<Box flexDirection="column" width={props.width} height={props.height}>
			<Text wrap="truncate" bold color={built.problem ? theme.warn : undefined}>
				{built.title}
			</Text>
			{built.lines.slice(first, first + view).map((l, i) => (
				<Text key={i} wrap="truncate" bold={l.startsWith('! ')} color={l.startsWith('! ') ? theme.warn : undefined}>
					{l}
				</Text>
			))}
			<Box flexGrow={1} />
			<Box width={props.width}>
				<Box flexGrow={1}>
					<Text wrap="truncate" color={theme.muted}>{` ${hint}`}</Text>
				</Box>
				{where ? <Text color={theme.muted}>{` ${where} `}</Text> : null}
			</Box>
		</Box>
	);
}
