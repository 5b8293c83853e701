/**
 * Feeds the Files pane: polls the files probe after every published model (the owner committed)
 * and at least every second, and formats the report into pane lines.
 */
import {FilesProbe, describeFiles} from '../store/files-probe.js';
import type {LiveStore} from '../store/live.js';
import type {FilesModel, FilesSource} from './files-model.js';

/** `firstPollMs` delays the first probe (the TUI lets its first frame go first). */
export function startFilesProbe(live: LiveStore, options: {intervalMs?: number; hiddenIntervalMs?: number; firstPollMs?: number} = {}): FilesSource & {close: () => void} {
	const probe = new FilesProbe(live.readOnlyStore.preflight.path);
	const listeners = new Set<(m: FilesModel) => void>();
	let model: FilesModel | null = null;
	let shown = '';
	let visible = false;
	let lastPoll = 0;
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
		lastPoll = Date.now();
		try {
			const report = await probe.read();
			const lines = describeFiles(report, live.model.facts.journalMode);
			const text = JSON.stringify(lines);
			// Publish only what changed: every publish re-renders the app.
			if (!closed && text !== shown) {
				shown = text;
				model = {lines, holders: report.holders, updatedAt: report.readAt};
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

	const off = live.subscribe(() => {
		if (visible) {
			void poll();
		}
	});
	const fast = options.intervalMs ?? 1000;
	const slow = options.hiddenIntervalMs ?? 15_000;
	const timer = setInterval(() => {
		if (Date.now() - lastPoll >= (visible ? fast : slow)) {
			void poll();
		}
	}, fast);
	timer.unref?.();
	const first = setTimeout(() => {
		void poll();
	}, options.firstPollMs ?? 0);
	first.unref?.();
	return {
		get model() {
			return model;
		},
		subscribe(listener) {
			listeners.add(listener);
			return () => listeners.delete(listener);
		},
		setVisible(next) {
			if (next && !visible) {
				void poll();
			}

			visible = next;
		},
		close() {
			closed = true;
			off();
			clearInterval(timer);
			clearTimeout(first);
			void probe.close();
		},
	};
}
