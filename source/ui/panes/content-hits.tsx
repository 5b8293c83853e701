/**
 * The Sessions pane while a content search is shown: one row per row with hits (status, id, chat,
 * the first hit's snippet, each match between » and «), the search and how it went in the footer.
 * ⏎ opens the selected row's detail; Esc goes back to every session.
 */
import React from 'react';
import {Box} from 'ink';
import {STATUS_GLYPH} from '../../forensics/status.js';
import {pad} from '../../text/format.js';
import {List} from '../components/list.js';
import type {ContentRow} from '../content-rows.js';
import type {ContentResult} from '../state.js';
import {useTheme} from '../theme.js';
import {statusFor} from '../views.js';
import type {PaneContext} from './types.js';

const ID = 24;

/** The chat column: wide enough for "keyless: orphan", wider on a wide terminal. */
function chatWidth(width: number): number {
	return width >= 120 ? 30 : 16;
}

/** The chat in its column: cut with an ellipsis, an orphan's kept as "keyless: orphan" (its chat is in Detail). */
function chatCell(label: string, width: number): string {
	if (label.length <= width) {
		return label;
	}

	return label.startsWith('keyless: orphan') && width >= 15 ? 'keyless: orphan' : `${label.slice(0, width - 1)}…`;
}

export function ContentHitsView({ctx, rows, cursor, content}: {ctx: PaneContext; rows: readonly ContentRow[]; cursor: number; content: ContentResult}): React.ReactElement {
	const theme = useTheme();
	const chat = chatWidth(ctx.width);
	const header = `${pad(' ', 2)} ${pad('row', ID)} ${pad('chat', chat)} snippet (» match «)`;
	const how = content.notes.length > 0 ? ` · ${content.notes[0]}` : '';
	return (
		<Box flexDirection="column">
			<List
				items={rows}
				cursor={cursor}
				height={ctx.height}
				width={ctx.width}
				wrap={ctx.ui.wrap.sessions}
				header={header}
				footer={`content "${content.text}": ${content.hits.length} hits in ${rows.length} rows · ⏎ detail · Esc all sessions${how}`}
				empty={`no message holds "${content.text}"${how} (Esc: all sessions)`}
				line={r => `${STATUS_GLYPH[statusFor(ctx.model.analysis, r.session)]} ${pad(r.session.id, ID)} ${pad(chatCell(r.chat, chat), chat)} ${r.snippet}`}
				color={r => (statusFor(ctx.model.analysis, r.session) === 'orphan' ? theme.warn : undefined)}
			/>
		</Box>
	);
}
