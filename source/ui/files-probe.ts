/**
 * Feeds the Files pane: polls the files probe after every published model (the owner committed)
 * and at least every second, and formats the report into pane lines.
 */
import {FilesProbe, describeFiles} from '../store/files-probe.js';
import type {LiveStore} from '../store/live.js';
import type {FilesModel, FilesSource} from './files-model.js';

export function startFilesProbe(live: LiveStore, options: {intervalMs?: number} = {}): FilesSource & {close: () => void} {
	const probe = new FilesProbe(live.readOnlyStore.preflight.path);
	const listeners = new Set<(m: FilesModel) => void>();
	let model: FilesModel | null = null;
	let running = false;
	let again = false;
	let closed = false;
	const poll = async () => {
		if (closed) {
			return;
		}

		if (running) {
			again = true;
			return;
		}

		running = true;
		try {
			const report = await probe.read();
			if (!closed) {
				model = {lines: describeFiles(report, live.model.facts.journalMode), holders: report.holders, updatedAt: report.readAt};
				for (const l of listeners) {
					l(model);
				}
			}
		} catch (error) {
			model = {lines: [{text: `files: ${error instanceof Error ? error.message : String(error)}`, tone: 'warn'}], holders: null, updatedAt: Date.now() / 1000};
		} finally {
			running = false;
			if (again) {
				again = false;
				void poll();
			}
		}
	};

	const off = live.subscribe(() => void poll());
	const timer = setInterval(() => void poll(), options.intervalMs ?? 1000);
	timer.unref?.();
	void poll();
	return {
		get model() {
			return model;
		},
		subscribe(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		close() {
			closed = true;
			off();
			clearInterval(timer);
			void probe.close();
		},
	};
}
