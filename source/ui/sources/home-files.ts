/**
 * The Files pane on a root with profiles: the focused profile's files. A profile's probe starts
 * when it is first focused (each walks /proc and reads its -shm: not started for profiles nobody
 * looks at) and, once started, polls only while it is focused and the pane shown (ui/sources/files-feed.ts).
 */
import type {LiveStore} from '../../live/live.js';
import type {FilesModel, FilesSource} from './files-model.js';
import {startFilesProbe} from './files-feed.js';
import type {HomeSource} from './home-source.js';

type Probe = ReturnType<typeof startFilesProbe>;

export function homeFilesSource(
	home: HomeSource,
	stores: ReadonlyMap<string, LiveStore>,
	options: {firstPollMs: number},
): FilesSource & {close: () => void} {
	const probes = new Map<string, Probe>();
	const listeners = new Set<(model: FilesModel) => void>();
	let visible = false;
	let off: (() => void) | undefined;
	const probeOf = (name: string): Probe => {
		let probe = probes.get(name);
		if (!probe) {
			probe = startFilesProbe(stores.get(name)!, probes.size === 0 ? options : {});
			probes.set(name, probe);
		}

		return probe;
	};

	let current = probeOf(home.model.focused);
	const follow = (): void => {
		off?.();
		off = current.subscribe(model => {
			for (const listener of listeners) {
				listener(model);
			}
		});
	};

	follow();
	const offHome = home.subscribe(view => {
		const next = probeOf(view.focused);
		if (next === current) {
			return;
		}

		current.setVisible?.(false);
		current = next;
		current.setVisible?.(visible);
		follow();
		const {model} = current;
		for (const listener of listeners) {
			// A profile not probed yet has no model: the pane says so until its first probe.
			listener(model as FilesModel);
		}
	});
	return {
		get model() {
			return current.model;
		},
		subscribe(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		setVisible(next) {
			visible = next;
			current.setVisible?.(next);
		},
		close() {
			offHome();
			off?.();
			for (const probe of probes.values()) {
				probe.close();
			}
		},
	};
}
