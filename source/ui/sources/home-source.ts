/**
 * Every profile's store followed at once, seen through one focused store: `live` is the focused
 * store as the panes read it (model, detail, refresh), `home` the view across profiles (the header,
 * the banner and Findings), and `cycle` moves the focus to the next or previous profile.
 */
import type {LiveModel} from '../../live/live.js';
import type {HomeView} from './home-model.js';
import type {LiveSource} from './live-source.js';
import type {SourceListener} from '../screen/frame-gate.js';

/** What one profile's store gives the home (a LiveStore is one). */
export type ProfileStore = LiveSource & {readonly model: LiveModel};

/** The view across profiles, as the screen subscribes to it, and the key that moves the focus. */
export type HomeSource = {
	readonly model: HomeView;
	subscribe: (listener: SourceListener<HomeView>) => () => void;
	/** Focuses the next (+1) or previous (-1) profile. */
	cycle: (delta: 1 | -1) => void;
	/** Focuses the profile of that name (none of that name: nothing moves). */
	focus: (name: string) => void;
	/** What the TUI says once, on its notice line, of the stores it follows. */
	readonly notice: string | null;
};

export class HomeStores {
	readonly live: LiveSource;
	readonly home: HomeSource;
	private focus = 0;
	private view: HomeView;
	private readonly liveListeners = new Set<SourceListener<LiveModel>>();
	private readonly homeListeners = new Set<SourceListener<HomeView>>();
	private readonly offs: Array<() => void>;

	constructor(
		private readonly stores: ReadonlyArray<{name: string; store: ProfileStore}>,
		notice: string | null,
		private readonly unreadable: ReadonlyArray<{name: string; reason: string}> = [],
	) {
		this.view = this.build();
		this.offs = stores.map((s, i) =>
			s.store.subscribe(model => {
				this.changed(i, model);
			}),
		);
		const self = this;
		this.live = {
			get model() {
				return self.focused.model;
			},
			subscribe: listener => self.listen(self.liveListeners, listener),
			detail: id => self.focused.detail(id),
			refresh: force => self.focused.refresh(force),
			messageSpans: (ids, gap) => self.focused.messageSpans?.(ids, gap) ?? [],
			// A pause holds every profile still: the header's word on the others would move otherwise.
			setPaused(paused) {
				for (const s of self.stores) {
					s.store.setPaused?.(paused);
				}
			},
		};
		this.home = {
			get model() {
				return self.view;
			},
			subscribe: listener => self.listen(self.homeListeners, listener),
			cycle: delta => {
				self.cycle(delta);
			},
			focus: name => {
				const index = self.stores.findIndex(s => s.name === name);
				if (index !== -1) {
					self.focusOn(index);
				}
			},
			notice,
		};
	}

	get focused(): ProfileStore {
		return this.stores[this.focus]!.store;
	}

	close(): void {
		for (const off of this.offs) {
			off();
		}
	}

	private cycle(delta: 1 | -1): void {
		this.focusOn((this.focus + delta + this.stores.length) % this.stores.length);
	}

	private focusOn(index: number): void {
		this.focus = index;
		this.view = this.build();
		// A key moved the focus: the header, the panes' model and the row the key opens are drawn in its one frame.
		this.emit(this.focused.model, true);
	}

	private changed(index: number, model: LiveModel): void {
		this.view = this.build();
		// Another profile's commit changes the home (header, banner, Findings), not the panes' store.
		this.emit(index === this.focus ? model : null);
	}

	private emit(model: LiveModel | null, atOnce = false): void {
		for (const listener of this.homeListeners) {
			listener(this.view, atOnce);
		}

		for (const listener of this.liveListeners) {
			if (model) {
				listener(model, atOnce);
			}
		}
	}

	private build(): HomeView {
		return {
			profiles: this.stores.map(s => ({name: s.name, model: s.store.model})),
			focused: this.stores[this.focus]!.name,
			unreadable: this.unreadable,
		};
	}

	private listen<T>(set: Set<SourceListener<T>>, listener: SourceListener<T>): () => void {
		set.add(listener);
		return () => set.delete(listener);
	}
}
