/**
 * `hfx files --json`: the store's path and journal mode, the files' probe as read (WAL frames, the
 * -shm header, the holders), each state judged, the places beside the store and whether any of it
 * needs attention.
 */
import type {Analysis} from '../../forensics/analysis/analyze.js';
import type {FilesReport} from '../../store/files/files-probe.js';
import type {FileState} from '../../store/files/files-states.js';
import type {Preflight} from '../../store/open/preflight.js';
import {placesJson} from './places-json.js';

export function filesJson(
	pre: Pick<Preflight, 'path' | 'link' | 'journalMode'>,
	report: FilesReport,
	states: readonly FileState[],
	analysis: Pick<Analysis, 'places' | 'newestElsewhere'> | null,
	attention: boolean,
) {
	return {
		database: {path: pre.path, link: pre.link, journalMode: pre.journalMode},
		...report,
		states,
		places: placesJson(analysis?.places ?? null),
		newestElsewhere: analysis?.newestElsewhere ?? [],
		attention,
	};
}
