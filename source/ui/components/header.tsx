/**
 * The header line: read-only, the store and its facts, and LIVE or PAUSED with the changes
 * waiting.
 */
import React from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import type {LiveModel} from '../../store/live.js';
import {bytes, plural} from '../../text/format.js';
import {useTheme} from '../theme.js';

export function Header({model, paused, waiting, width}: {model: LiveModel; paused: boolean; waiting: number; width: number}): React.ReactElement {
	const theme = useTheme();
	const f = model.facts;
	const state = paused ? `PAUSED (${plural(waiting, 'change')} waiting)` : '● LIVE';
	const wal = f.journalMode === 'wal' ? (f.sizes.wal === null ? 'WAL (no -wal)' : `WAL ${bytes(f.sizes.wal)}`) : 'rollback journal';
	// The owner comes before the path: at 80 columns the path takes the rest of the line.
	const text = ` hfx · READ-ONLY · profile ${f.owner} · ${f.label === f.path ? '' : `${f.label} · `}${f.path} · schema ${f.schemaVersion === null ? '?' : `v${f.schemaVersion}`} · ${f.ruleSet} · ${wal} · dv ${f.dataVersion} `;
	const room = Math.max(0, width - state.length - 2);
	return (
		<Box width={width}>
			<Text bold wrap="truncate">{text.length > room ? `${text.slice(0, Math.max(0, room - 1))}…` : text.padEnd(room)}</Text>
			<Text bold color={paused ? theme.warn : theme.ok}>{` ${state}`}</Text>
		</Box>
	);
}
