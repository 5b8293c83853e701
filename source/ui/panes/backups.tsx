/**
 * Backups: the archives and quick snapshots `hfx backups` lists for the root (every profile's
 * snapshots, each naming its profile; --profile keeps its own), in its words; verify, drill and
 * snapshot (of the focused profile) from here. Restores stay on the command line (they need a stopped gateway
 * and a typed confirmation).
 */
import type React from 'react';
import {Box} from 'ink';
import {Text} from '../components/text.js';
import type {BackupEntry} from '../sources/backups-model.js';
import {backupWords} from '../../report/backups/backups.js';
import {ago, bytes, pad} from '../../text/format.js';
import {textWidth} from '../../text/width.js';
import {List} from '../components/list.js';
import {useTheme} from '../theme.js';
import type {PaneContext, PaneSpec} from './types.js';

type Words = ReturnType<typeof backupWords>;

/**
 * The columns, in `hfx backups`' words, the ones an operator acts on first (at 80 columns the line
 * is cut after them; w wraps it whole): name, kind (a snapshot's profile named), age, verified,
 * drilled, whose home, size, complete.
 */
function columns(
	now: number,
): Array<{title: string; value: (r: {e: BackupEntry; w: Words}) => string; align?: 'right'}> {
	return [
		{title: 'name', value: r => r.e.name},
		{title: 'kind', value: r => r.w.kind},
		{title: 'age', value: r => ago(r.e.createdAt, now), align: 'right'},
		{title: 'verified', value: r => r.w.verified},
		{title: 'drilled', value: r => r.w.drilled},
		{title: 'home', value: r => r.w.home},
		{title: 'size', value: r => bytes(r.e.size), align: 'right'},
		{title: 'complete', value: r => r.w.complete},
	];
}

function BackupsView({ctx}: {ctx: PaneContext}): React.ReactElement {
	const theme = useTheme();
	const m = ctx.backups;
	if (!m) {
		return <Text color={theme.muted}>{'  looking for backups…'}</Text>;
	}

	const rows = m.entries.map(e => ({e, w: backupWords(e, ctx.now)}));
	const cols = columns(ctx.now).map(c => ({
		...c,
		width: Math.min(48, Math.max(c.title.length, ...rows.map(r => textWidth(c.value(r))))),
	}));
	const cells = (text: (c: (typeof cols)[number]) => string) => cols.map(c => pad(text(c), c.width, c.align)).join(' ');
	// S snapshots the focused profile's store (on a root with profiles, the one P focuses).
	const of = ctx.home ? ` of ${ctx.home.focused}` : '';
	return (
		<Box flexDirection="column">
			<List
				items={rows}
				cursor={ctx.ui.cursor.backups}
				height={ctx.height - 2}
				width={ctx.width}
				wrap={ctx.ui.wrap.backups}
				header={cells(c => c.title)}
				empty={
					`no backups yet under ${m.root ?? 'the Hermes root'}: press S for a ` +
					`quick snapshot${of}, or run hfx backup`
				}
				line={r => cells(c => c.value(r))}
				color={({e, w}) => {
					return w.verified === 'FAILED' || w.verified === 'CHANGED since' || e.owner === 'other'
						? theme.danger
						: w.verified.startsWith('yes')
							? undefined
							: theme.muted;
				}}
			/>
			<Text
				wrap="truncate"
				color={m.busy ? theme.accent : theme.muted}
			>{`  ${m.busy ? `${m.busy}${m.last ? `  · ${m.last}` : ''}` : (m.last ?? idleFooter(of))}`}</Text>
			<Text wrap="truncate" color={theme.muted}>{`  archives hold credentials: never send one to anyone`}</Text>
		</Box>
	);
}

export const backupsPane: PaneSpec = {
	rowCount: ctx => ctx.backups?.entries.length ?? 0,
	selectedId: () => null,
	yankText: ctx => ctx.backups?.entries[ctx.ui.cursor.backups]?.path ?? null,
	View: BackupsView,
};

/** The pane's footer while nothing runs: its keys, and how a restore is run. */
function idleFooter(of: string): string {
	return `v verify  D drill  S quick snapshot${of}  · restore with: hfx restore ARCHIVE --home DIR (gateway stopped)`;
}
