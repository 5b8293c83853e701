/**
 * Files: state.db, -wal and -shm; the WAL header and frame classes with the checksum-break
 * signal; the -shm header (read in a child process); who holds the files; then the other places
 * the conversation can be (diverted transcripts, the spool, retired captures, before images).
 */
import type React from 'react';
import {Text} from '../components/text.js';
import {List} from '../components/list.js';
import {useTheme} from '../theme.js';
import type {PaneContext, PaneSpec} from './types.js';

function FilesView({ctx}: {ctx: PaneContext}): React.ReactElement {
	const theme = useTheme();
	if (!ctx.files) {
		return <Text color={theme.muted}>{'  reading the files…'}</Text>;
	}

	const tone = (t: string | undefined) =>
		t === 'danger'
			? theme.danger
			: t === 'warn'
				? theme.warn
				: t === 'ok'
					? theme.ok
					: t === 'muted'
						? theme.muted
						: undefined;
	return (
		<List
			items={ctx.files.lines}
			cursor={ctx.ui.cursor.files}
			height={ctx.height}
			width={ctx.width}
			wrap={ctx.ui.wrap.files}
			line={l => l.text}
			color={l => tone(l.tone)}
		/>
	);
}

export const filesPane: PaneSpec = {
	rowCount: ctx => ctx.files?.lines.length ?? 0,
	selectedId: () => null,
	yankText: ctx => ctx.model.facts.path,
	View: FilesView,
};
