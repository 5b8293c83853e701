/**
 * A seeded generator of stores where the epoch window of v30's freshest-of "last active" decides
 * (hermes-incidents.md §3.3, #91543): a timestamp cell outside [0, 4.2e9] (5.49e+246, 9e15, -1e12)
 * or a TEXT cell on a keyed donor or on the orphan itself, so that the windowed expression
 * (upstream hermes_state_common.py @00704d08) and the unwindowed one (@f31cf971) name another donor,
 * or none. Apart from adversarial-stores.ts on purpose: its 80 stores and their hashes stay as judged.
 *
 * Both trees judged every store once, by hand (test/fixtures/hermes-differential, README); the test
 * regenerates the stores and checks each one's hash against the one judged.
 */
import {prng} from './prng.js';
import type {ChatKey, GenSession, GenStore} from './adversarial-stores.js';

/** The edges; store i of a seed carries WINDOW_CLASSES[i]. */
export const WINDOW_CLASSES = [
	'donor-activity-high',
	'donor-message-high',
	'donor-activity-low',
	'donor-message-low',
	'donor-activity-text',
	'orphan-message-high',
	'rival-garbage',
] as const;

export type WindowClass = (typeof WINDOW_CLASSES)[number];

/** The seeds the committed verdicts were made from. */
export const WINDOW_SEEDS = [91543, 91536, 102399] as const;

const PLATFORMS = ['telegram', 'discord', 'whatsapp', 'matrix', 'signal'];
const HIGH = [5.49e246, 9e15];
const TEXT = ['yesterday', '2026-09-01 10:00:00'];

/** A cell the writer stores as is: a TEXT last_activity_at is the corruption this generator is for. */
type Cell = number | string | null;
type Row = Omit<GenSession, 'last_activity_at'> & {last_activity_at: Cell};

class Draft {
	readonly sessions: Row[] = [];
	readonly keys: ChatKey[] = [];
	private n = 0;

	constructor(
		readonly rng: () => number,
		readonly prefix: string,
	) {}

	int(lo: number, hi: number): number {
		return lo + Math.floor(this.rng() * (hi - lo + 1));
	}

	pick<T>(xs: readonly T[]): T {
		return xs[Math.floor(this.rng() * xs.length)]!;
	}

	/** A row, keyless and live unless told; its messages 10 s apart from started_at + 10. */
	row(label: string, source: string, startedAt: number, messages: number, cells: Partial<Row> = {}): Row {
		const stamps = Array.from({length: messages}, (_, i) => startedAt + 10 + i * 7);
		const s: Row = {
			id: `${this.prefix}_${label}${this.n++}`,
			source,
			session_key: null,
			user_id: null,
			chat_id: null,
			chat_type: null,
			profile_name: null,
			parent_session_id: null,
			started_at: startedAt,
			ended_at: null,
			end_reason: null,
			last_activity_at: stamps.at(-1) ?? null,
			message_count: messages,
			model_config: null,
			handoff_state: null,
			messages: stamps,
			...cells,
		};
		this.sessions.push(s);
		return s;
	}

	/** A keyed row of a new chat (registered for the finder). */
	keyed(label: string, source: string, chatId: string, startedAt: number, messages: number): Row {
		const key = `agent:main:${source}:dm:${chatId}`;
		if (!this.keys.some(k => k.key === key)) {
			this.keys.push({key, source, chatId});
		}

		return this.row(label, source, startedAt, messages, {
			session_key: key,
			user_id: chatId,
			chat_id: chatId,
			chat_type: 'dm',
		});
	}
}

/** The true last activity of a row made by Draft.row (its last message, else started_at). */
function trueLast(s: Row): number {
	return s.messages.at(-1) ?? (s.started_at as number);
}

/** A keyed donor and its keyless successor 30..600 s after the donor's true last activity. */
function donorAndOrphan(d: Draft, t: number, donorMessages = d.int(1, 4)): {donor: Row; orphan: Row} {
	const source = d.pick(PLATFORMS);
	const donor = d.keyed('donor', source, String(9100 + d.int(0, 899)), t, donorMessages);
	const orphan = d.row('orphan', source, trueLast(donor) + d.int(30, 600), d.int(1, 4));
	return {donor, orphan};
}

const EDGES: Record<WindowClass, (d: Draft, t: number) => void> = {
	'donor-activity-high'(d, t) {
		donorAndOrphan(d, t).donor.last_activity_at = d.pick(HIGH);
	},
	'donor-message-high'(d, t) {
		const {donor} = donorAndOrphan(d, t, d.int(2, 4));
		donor.messages.push(9e15);
		donor.message_count = donor.messages.length;
	},
	'donor-activity-low'(d, t) {
		const {donor} = donorAndOrphan(d, t, 0);
		donor.last_activity_at = d.pick([-1e12, -1]);
	},
	'donor-message-low'(d, t) {
		const {donor} = donorAndOrphan(d, t, 0);
		donor.messages.push(-1e12);
		donor.message_count = 1;
	},
	'donor-activity-text'(d, t) {
		donorAndOrphan(d, t).donor.last_activity_at = d.pick(TEXT);
	},
	'orphan-message-high'(d, t) {
		// The donor stays active past the orphan's true last message, inside its window: windowed, no donor is quieter.
		const {donor, orphan} = donorAndOrphan(d, t);
		donor.last_activity_at = (orphan.started_at as number) + d.int(100, 500);
		orphan.messages.push(9e15);
		orphan.message_count = orphan.messages.length;
		orphan.last_activity_at = null;
	},
	'rival-garbage'(d, t) {
		const {donor} = donorAndOrphan(d, t);
		const rival = d.keyed('rival', donor.source, String(Number(donor.chat_id) + 1), t - d.int(5, 60), d.int(1, 3));
		rival.last_activity_at = d.pick([...HIGH, ...TEXT]);
	},
};

/** Store `index` of `seed`: one ordinary live chat, maybe, and its forced edge; the same every time. */
export function generateWindowStore(seed: number, index: number): GenStore {
	const rng = prng(seed * 1000 + index);
	const cls = WINDOW_CLASSES[index % WINDOW_CLASSES.length]!;
	const prefix = `w${seed}n${index}`;
	const d = new Draft(rng, prefix);
	const t0 = 1_788_250_000 + Math.floor(rng() * 2_592_000);
	if (d.int(0, 1) === 1) {
		d.keyed('plain', d.pick(PLATFORMS), String(5000 + d.int(0, 999)), t0, d.int(1, 3));
	}

	EDGES[cls](d, t0 + 100_000);
	return {
		name: prefix,
		seed,
		index,
		path: 'state.db',
		owner: 'default',
		multiplexed: false,
		classes: [cls],
		// The writer binds each cell as it is; a TEXT last_activity_at is stored as TEXT, as the corruption it stands for.
		sessions: d.sessions as unknown as GenSession[],
		keys: d.keys,
	};
}

/** Every store of the committed seeds, in order. */
export function generateWindowStores(seeds: readonly number[] = WINDOW_SEEDS): GenStore[] {
	return seeds.flatMap(seed => WINDOW_CLASSES.map((_, i) => generateWindowStore(seed, i)));
}
