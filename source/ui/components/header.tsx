/**
 * The header line: read-only, the store and its facts, and LIVE or PAUSED with the changes
 * waiting.
 */
import type React from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import type {LiveModel} from '../../live/live.js';
import {bytes, plural} from '../../text/format.js';
import {shortPath} from '../../text/fit.js';
import {useTheme} from '../theme.js';
import {type HomeView, profilesSummary} from '../sources/home-model.js';

/**
 * Which store the header is about: its profile; on a root with profiles, the home's word first ("3 profiles · work ✗
 * rollback risk · on default": the panes show default).
 */
export function headerProfile(owner: string, home?: HomeView | null): string {
	return home ? `${profilesSummary(home)} · on ${owner}` : `profile ${owner}`;
}

export function Header({
	model,
	paused,
	waiting,
	width,
	home,
}: {
	model: LiveModel;
	paused: boolean;
	waiting: number;
	width: number;
	home?: HomeView | null;
}): React.ReactElement {
	const theme = useTheme();
	const f = model.facts;
	const state = paused ? `PAUSED (${plural(waiting, 'change')} waiting)` : '● LIVE';
	const wal =
		f.journalMode === 'wal'
			? f.sizes.wal === null
				? 'WAL (no -wal)'
				: `WAL ${bytes(f.sizes.wal)}`
			: 'rollback journal';
	const store = `${f.label === f.path ? '' : `${f.label} · `}${f.path}`;
	// The rules the verdicts use: the installed build's variant of the generation where it lacks a change (issue #27).
	const schema = `schema ${f.schemaVersion === null ? '?' : `v${f.schemaVersion}`} · ${model.analysis.rulesLabel}`;
	const room = Math.max(0, width - state.length - 2);
	const profile = headerProfile(f.owner, home);
	// The demo says so at every width (issue #28 point 6): it leads, never cut with the path.
	const demo = f.label === 'DEMO' ? 'DEMO · ' : '';
	const full =
		` hfx · ${demo}READ-ONLY · ${profile} · ${demo ? f.path : store} ` + `· ${schema} · ${wal} · dv ${f.dataVersion} `;
	// When it does not fit, what changes live (the version, the WAL) comes before the path, which takes the rest of the
	// line.
	// The path then keeps its end (…/profiles/work/state.db), never shown as a bare "/…".
	const lead = ` hfx · ${demo}READ-ONLY · ${profile} · dv ${f.dataVersion} · ${wal} · `;
	const label = f.label === f.path || demo ? '' : `${f.label} · `;
	const pathRoom = room - lead.length - label.length - 1;
	const text =
		full.length <= room
			? full
			: `${lead}${pathRoom >= 12 ? label : ''}` +
				`${shortPath(f.path, pathRoom >= 12 ? pathRoom : room - lead.length - 1)} `;
	return (
		<Box width={width}>
			<Text bold wrap="truncate">
				{text.length > room ? `${text.slice(0, Math.max(0, room - 1))}…` : text.padEnd(room)}
			</Text>
			<Text bold color={paused ? theme.warn : theme.ok}>{` ${state}`}</Text>
		</Box>
	);
}
