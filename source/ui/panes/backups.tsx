/**
 * Backups: archives and quick snapshots with age, size, verified and drilled status; verify,
 * drill and snapshot from here. Restores stay on the command line (they need a stopped gateway
 * and a typed confirmation).
 */
import React from 'react';
import {Box} from 'ink';
import {Text} from '../components/text.js';
import {backupStatus} from '../../report/backups.js';
import {ago, bytes, pad} from '../../text/format.js';
import {List} from '../components/list.js';
import {useTheme} from '../theme.js';
import type {PaneContext, PaneSpec} from './types.js';

function BackupsView({ctx}: {ctx: PaneContext}): React.ReactElement {
	const theme = useTheme();
	const m = ctx.backups;
	if (!m) {
		return <Text color={theme.muted}>  looking for backups…</Text>;
	}

	// The verified column is as wide as its longest value ("yes, 2h ago (at write)" must not be cut).
	const verifiedWidth = Math.max(16, ...m.entries.map(e => backupStatus(e, ctx.now).verified.length + 1));
	const header = `${pad('name', 40)} ${pad('age', 10)} ${pad('size', 9, 'right')}  ${pad('verified', verifiedWidth)} drilled`;
	return (
		<Box flexDirection="column">
			<List
				items={m.entries}
				cursor={ctx.ui.cursor.backups}
				height={ctx.height - 2}
				width={ctx.width}
				wrap={ctx.ui.wrap.backups}
				header={header}
				empty={`no backups yet under ${m.root ?? 'the Hermes root'}: press S for a quick snapshot, or run hfx backup`}
				line={e => {
					const s = backupStatus(e, ctx.now);
					return `${pad(e.name, 40)} ${pad(ago(e.createdAt, ctx.now), 10)} ${pad(bytes(e.size), 9, 'right')}  ${pad(s.verified, verifiedWidth)} ${s.drilled}`;
				}}
				color={e => {
					const {verified} = backupStatus(e, ctx.now);
					return verified === 'FAILED' || verified === 'CHANGED since' ? theme.danger : (verified.startsWith('yes') ? undefined : theme.muted);
				}}
			/>
			<Text wrap="truncate" color={m.busy ? theme.accent : theme.muted}>{`  ${m.busy ? `${m.busy}${m.last ? `  · ${m.last}` : ''}` : (m.last ?? 'v verify  D drill  S quick snapshot  · restore with: hfx restore ARCHIVE --home DIR (gateway stopped)')}`}</Text>
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
