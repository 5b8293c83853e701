/**
 * The Sessions pane while a content search is shown: one row per row with hits (status, on a root
 * with profiles its profile, id, chat, the first hit's snippet, each match between » and «), the
 * search and how it went in the footer. ⏎ opens the selected row's detail (another profile's row:
 * that profile focused first); Esc goes back to every session.
 */
import type React from 'react';
import {Box} from 'ink';
import {STATUS_GLYPH} from '../../forensics/analysis/status.js';
import {pad} from '../../text/format.js';
import {List} from '../components/list.js';
import {type ContentRow, contentRowId} from '../search/content-rows.js';
import type {ContentResult} from '../state.js';
import {useTheme} from '../theme.js';
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

/**
 * The profile column on a root with profiles: as wide as the longest name, at most 8 (a longer one cut with an
 * ellipsis); none for one store.
 */
function profileWidth(rows: readonly ContentRow[], profiles: number): number {
	return profiles > 1 ? Math.min(8, Math.max(4, ...rows.map(r => r.profile?.length ?? 0))) : 0;
}

function profileCell(name: string | undefined, width: number): string {
	const text = name ?? '';
	return width === 0 ? '' : `${pad(text.length <= width ? text : `${text.slice(0, width - 1)}…`, width)} `;
}

export function ContentHitsView({
	ctx,
	rows,
	cursor,
	content,
}: {
	ctx: PaneContext;
	rows: readonly ContentRow[];
	cursor: number;
	content: ContentResult;
}): React.ReactElement {
	const theme = useTheme();
	const chat = chatWidth(ctx.width);
	const stores = content.profiles ?? 1;
	const profile = profileWidth(rows, stores);
	const header =
		`${pad(' ', 2)} ${profileCell(profile >= 7 ? 'profile' : 'prof', profile)}${pad('row', ID)} ${pad('chat', chat)} ` +
		`snippet (» match «)`;
	const how = content.notes.length > 0 ? ` · ${content.notes[0]}` : '';
	const across = stores > 1 ? ` of ${stores} profiles` : '';
	return (
		<Box flexDirection="column">
			<List
				items={rows}
				id={contentRowId}
				cursor={cursor}
				height={ctx.height}
				width={ctx.width}
				wrap={ctx.ui.wrap.sessions}
				header={header}
				footer={
					`content "${content.text}": ${content.hits.length} hits ` +
					`in ${rows.length} rows${across} · ⏎ detail · Esc all sessions${how}`
				}
				empty={`no message holds "${content.text}"${how} (Esc: all sessions)`}
				line={r =>
					`${STATUS_GLYPH[r.status]} ${profileCell(r.profile, profile)}` +
					`${pad(r.session.id, ID)} ${pad(chatCell(r.chat, chat), chat)} ${r.snippet}`
				}
				color={r => (r.status === 'orphan' ? theme.warn : undefined)}
			/>
		</Box>
	);
}
