/**
 * A live source whose models the test hands to the screen itself (`publish`), instead of a store publishing on every
 * refresh: for the frame gate, a model drawn late, and what the screen keeps of the models it showed.
 */
import type {LiveModel} from '../../source/live/live.js';
import type {LiveSource} from '../../source/ui/app.js';
import type {SourceListener} from '../../source/ui/screen/frame-gate.js';
import type {SessionDetail} from '../../source/store/read/detail.js';

export type HandedSource = {source: LiveSource; publish: (model: LiveModel) => LiveModel};

/** `first` is the model until the first `publish`; `detail` reads a session's detail (from the test's store). */
export function handedSource(first: LiveModel, detail: (id: string) => SessionDetail): HandedSource {
	const listeners = new Set<SourceListener<LiveModel>>();
	let current = first;
	return {
		source: {
			get model() {
				return current;
			},
			subscribe(listener) {
				listeners.add(listener);
				return () => listeners.delete(listener);
			},
			detail,
			refresh: () => false,
		},
		publish(model) {
			current = model;
			for (const listener of listeners) {
				listener(current);
			}

			return current;
		},
	};
}
