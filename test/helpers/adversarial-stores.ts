/**
 * A seeded, deterministic generator of adversarial Hermes stores (issue #27 point 3). Each store
 * holds a few chats (a keyed row, its keyless successor, older rows of the same key...) and the
 * edges where hfx once disagreed with the real code: malformed model_config, TEXT started_at,
 * session_key '', local-surface counts, a finding that remains after --apply, the multiplexed
 * tuple fallback, and each column-level rule change of hermes-incidents.md §3.3 (epoch window,
 * recoverable end reasons, completed handoff, profile fence, reset fence).
 *
 * The real v25 code judged every store once, by hand (test/fixtures/hermes-differential); the
 * test regenerates the stores from the seeds and checks each store's hash against the one the
 * real code judged, so a change here that alters a store fails loudly.
 */
import crypto from 'node:crypto';
import {prng} from './prng.js';

export type GenSession = {
	id: string;
	source: string;
	session_key: string | null;
	user_id: string | null;
	chat_id: string | null;
	chat_type: string | null;
	profile_name: string | null;
	parent_session_id: string | null;
	started_at: number | string;
	ended_at: number | null;
	end_reason: string | null;
	last_activity_at: number | null;
	message_count: number;
	model_config: string | null;
	handoff_state: string | null;
	/** The timestamp of each message row, in order. */
	messages: number[];
};

/** A chat a restart resolves: the finder's inputs (the gateway's own peer tuple: user_id = chat_id, chat_type 'dm'). */
export type ChatKey = {key: string; source: string; chatId: string | null};

export type GenStore = {
	name: string;
	seed: number;
	index: number;
	/** Where the store lies under its folder: the owner profile comes from it. */
	path: string;
	owner: string;
	/** The gateway runs with multiplex_profiles (keys agent:<profile>:…). */
	multiplexed: boolean;
	classes: string[];
	sessions: GenSession[];
	keys: ChatKey[];
};

/** The edges each store may carry; store i always carries CLASSES[i % CLASSES.length]. */
export const CLASSES = [
	'json-malformed-no-messages',
	'json-malformed-with-messages',
	'json-malformed-ignored',
	'text-started-at',
	'text-started-at-lineage',
	'empty-session-key',
	'local-counts',
	'finding-remains',
	'multiplexed-tuple',
	'epoch-garbage',
	'recoverable-reasons',
	'completed-handoff',
	'profile-fence',
	'reset-fence',
	'tuple-fallback',
	'contest',
] as const;

export type EdgeClass = (typeof CLASSES)[number];

/** The edges on which v25's repair-routing raises. */
const FAILING = new Set<EdgeClass>(['json-malformed-no-messages', 'json-malformed-with-messages', 'text-started-at']);

/** The seeds the committed verdicts were made from, and how many stores each seed makes. */
export const SEEDS = [27, 91, 543, 1283, 8261] as const;
export const STORES_PER_SEED = CLASSES.length;

const PLATFORMS = ['telegram', 'discord', 'slack', 'whatsapp', 'matrix', 'signal'];
const ENDINGS = [
	'agent_close',
	'ws_orphan_reap',
	'cli_close',
	'superseded_by_resume',
	'startup_orphan_reap',
	'compression',
	'session_reset',
	'idle',
];
const BAD_JSON = ['', '{not json', 'x', '[1,'];

type Rng = () => number;

/** The store's state while it is made: its rows, its chats and a counter for ids. */
class Draft {
	readonly sessions: GenSession[] = [];
	readonly keys: ChatKey[] = [];
	private n = 0;

	constructor(
		readonly rng: Rng,
		readonly ns: string,
		readonly t0: number,
		readonly prefix: string,
	) {}

	int(lo: number, hi: number): number {
		return lo + Math.floor(this.rng() * (hi - lo + 1));
	}

	pick<T>(xs: readonly T[]): T {
		return xs[Math.floor(this.rng() * xs.length)]!;
	}

	chance(p: number): boolean {
		return this.rng() < p;
	}

	/** A row: keyless and live unless told, message_count and last_activity_at as the real writer keeps them. */
	row(label: string, source: string, startedAt: number, messages: number, cells: Partial<GenSession> = {}): GenSession {
		const stamps = Array.from({length: messages}, (_, i) => startedAt + 10 + i * 7);
		const s: GenSession = {
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

	/** A new chat: its key, registered for the finder. */
	chat(platform: string, chatId: string, ns = this.ns): {key: string; source: string; peer: Partial<GenSession>} {
		const key = `agent:${ns}:${platform}:dm:${chatId}`;
		if (!this.keys.some(k => k.key === key)) {
			this.keys.push({key, source: platform, chatId});
		}

		return {key, source: platform, peer: {session_key: key, user_id: chatId, chat_id: chatId, chat_type: 'dm'}};
	}

	end(s: GenSession, reason: string, at: number): void {
		s.ended_at = at;
		s.end_reason = reason;
	}
}

function lastActive(s: GenSession): number {
	return s.last_activity_at ?? (typeof s.started_at === 'number' ? s.started_at : 0);
}

/**
 * One ordinary chat: a keyed row, maybe its keyless successor (inside or outside the window), maybe an older row of the
 * key.
 */
function baseChat(d: Draft, c: number): void {
	const platform = d.pick(PLATFORMS);
	const chat = d.chat(platform, String(5000 + d.int(0, 999)));
	const t = d.t0 + c * 20_000;
	const donor = d.row('donor', chat.source, t, d.int(1, 5), {...chat.peer});
	if (d.chance(0.15)) {
		donor.last_activity_at = null;
	}

	if (d.chance(0.35)) {
		d.end(donor, d.pick(ENDINGS), lastActive(donor) + d.int(5, 50));
	}

	if (d.chance(0.65)) {
		const gap = d.chance(0.75) ? d.int(20, 850) : d.int(950, 4000);
		const peer = d.chance(0.3) ? {user_id: chat.peer.user_id!} : {};
		d.row('orphan', chat.source, lastActive(donor) + gap, d.int(1, 6), peer);
	}

	if (d.chance(0.25)) {
		d.row('older', chat.source, t - d.int(3600, 86_400), d.int(0, 3), {...chat.peer});
	}

	if (d.chance(0.15)) {
		d.row('lineage', chat.source, lastActive(donor) + d.int(3000, 9000), d.int(1, 4), {parent_session_id: donor.id});
	}

	if (d.chance(0.15)) {
		d.row('empty', chat.source, lastActive(donor) + d.int(100, 900), 0, {...chat.peer});
	}
}

/** A keyed chat and its keyless successor 100 s later: the shape most edges are put beside. */
function donorAndOrphan(
	d: Draft,
	t: number,
): {donor: GenSession; orphan: GenSession; key: string; source: string; peer: Partial<GenSession>} {
	const chat = d.chat(d.pick(PLATFORMS), String(6000 + d.int(0, 999)));
	const donor = d.row('donor', chat.source, t, d.int(2, 4), {...chat.peer});
	const orphan = d.row('orphan', chat.source, lastActive(donor) + d.int(30, 600), d.int(2, 6));
	return {donor, orphan, key: chat.key, source: chat.source, peer: chat.peer};
}

const EDGES: Record<EdgeClass, (d: Draft, t: number) => void> = {
	'json-malformed-no-messages'(d, t) {
		d.row('nomsg', d.pick([...PLATFORMS, 'cli', 'unknown']), t, 0, {model_config: d.pick(BAD_JSON)});
	},
	'json-malformed-with-messages'(d, t) {
		d.row('badjson', d.pick([...PLATFORMS, 'cli']), t, d.int(1, 3), {model_config: d.pick(BAD_JSON)});
	},
	'json-malformed-ignored'(d, t) {
		d.row('tool', 'tool', t, d.int(1, 3), {model_config: d.pick(BAD_JSON)});
		const chat = d.chat(d.pick(PLATFORMS), String(7000 + d.int(0, 999)));
		d.row('keyedbad', chat.source, t + 50, d.int(1, 3), {...chat.peer, model_config: d.pick(BAD_JSON)});
	},
	'text-started-at'(d, t) {
		donorAndOrphan(d, t);
		d.row('textstart', d.pick([...PLATFORMS, 'cli']), t + 400, d.int(1, 3), {
			started_at: d.pick(['yesterday', '2026-09-01 10:00:00']),
		});
	},
	'text-started-at-lineage'(d, t) {
		const {donor} = donorAndOrphan(d, t);
		d.row('textlineage', donor.source, t + 900, d.int(1, 3), {started_at: 'yesterday', parent_session_id: donor.id});
	},
	'empty-session-key'(d, t) {
		const platform = d.pick(PLATFORMS);
		const chatId = String(8000 + d.int(0, 999));
		d.row('emptykey', platform, t, d.int(1, 3), {session_key: '', user_id: chatId, chat_id: chatId, chat_type: 'dm'});
		d.keys.push({key: '', source: platform, chatId});
		if (d.chance(0.5)) {
			d.row('afterempty', platform, t + 200, d.int(1, 3));
		}
	},
	'local-counts'(d, t) {
		for (const source of ['cli', d.pick(['tui', 'cron', 'acp'])]) {
			const s = d.row('local', source, t, d.int(1, 4));
			s.message_count = d.pick([0, s.messages.length + d.int(1, 6)]);
		}
	},
	'finding-remains'(d, t) {
		const {orphan, peer, source} = donorAndOrphan(d, t);
		d.row('other', source, t - 86_400, d.int(1, 2), {...peer, last_activity_at: lastActive(orphan) + d.int(100, 3000)});
	},
	'multiplexed-tuple'(d, t) {
		const platform = d.pick(PLATFORMS);
		const chatId = String(6300 + d.int(0, 99));
		const mine = d.chat(platform, chatId);
		const closed = d.row('closed', platform, t, d.int(1, 4), {...mine.peer});
		d.end(closed, d.pick(['cli_close', 'session_switch', 'compression']), t + 300);
		const theirs = `agent:other:${platform}:dm:${chatId}`;
		d.row('otherprof', platform, t + 600, d.int(1, 4), {...mine.peer, session_key: theirs, profile_name: 'other'});
	},
	'epoch-garbage'(d, t) {
		const chat = d.chat(d.pick(PLATFORMS), String(6500 + d.int(0, 99)));
		d.row('live', chat.source, t, d.int(1, 3), {...chat.peer});
		const old = d.row('garbage', chat.source, t - 86_400, d.int(1, 3), {...chat.peer});
		if (d.chance(0.5)) {
			old.last_activity_at = d.pick([5.49e246, 9e15, -1e12]);
		} else {
			old.messages[old.messages.length - 1] = 9e15;
			old.last_activity_at = null;
		}

		if (d.chance(0.5)) {
			d.row('orphan', chat.source, t + 400, d.int(1, 3));
		}
	},
	'recoverable-reasons'(d, t) {
		const chat = d.chat(d.pick(PLATFORMS), String(6600 + d.int(0, 99)));
		d.row('live', chat.source, t, d.int(1, 3), {...chat.peer});
		const reaped = d.row('reaped', chat.source, t + 500, d.int(1, 3), {...chat.peer});
		d.end(reaped, d.pick(['superseded_by_resume', 'startup_orphan_reap', 'agent_close', 'ws_orphan_reap']), t + 800);
	},
	'completed-handoff'(d, t) {
		const chat = d.chat(d.pick(PLATFORMS), String(6700 + d.int(0, 99)));
		d.row('live', chat.source, t, d.int(1, 3), {...chat.peer});
		const handed = d.row('handoff', chat.source, t + 500, d.int(1, 3), {
			...chat.peer,
			handoff_state: d.pick(['completed', 'pending']),
		});
		d.end(handed, 'cli_close', t + 800);
	},
	'profile-fence'(d, t) {
		const {donor, orphan} = donorAndOrphan(d, t);
		donor.profile_name = d.pick(['other', d.ns === 'main' ? 'default' : d.ns]);
		if (d.chance(0.5)) {
			orphan.profile_name = 'other';
		}
	},
	'reset-fence'(d, t) {
		const chat = d.chat(d.pick(PLATFORMS), String(6800 + d.int(0, 99)));
		d.row('beforereset', chat.source, t, d.int(1, 3), {...chat.peer});
		const reset = d.row('reset', chat.source, t + 300, d.int(0, 2), {...chat.peer});
		d.end(reset, d.pick(['session_reset', 'idle', 'daily', 'suspended', 'session_switch']), t + d.pick([200, 600]));
		if (d.chance(0.4)) {
			d.row('afterreset', chat.source, t + 700, 0, {...chat.peer});
		}
	},
	'tuple-fallback'(d, t) {
		const chat = d.chat(d.pick(PLATFORMS), String(6900 + d.int(0, 99)));
		const closed = d.row('closed', chat.source, t, d.int(1, 3), {...chat.peer});
		d.end(closed, d.pick(['cli_close', 'compression']), t + 100);
		d.row('tuplemate', chat.source, t + 400, d.int(0, 3), {
			user_id: chat.peer.user_id!,
			chat_id: chat.peer.chat_id!,
			chat_type: 'dm',
			profile_name: d.pick([null, 'other']),
		});
	},
	contest(d, t) {
		const {donor} = donorAndOrphan(d, t);
		d.row('rival', donor.source, lastActive(donor) + d.int(30, 600), d.int(1, 3));
		if (d.chance(0.5)) {
			const chat2 = d.chat(donor.source, String(Number(donor.chat_id) + 1));
			d.row('seconddonor', donor.source, t + 5, d.int(1, 2), {...chat2.peer});
		}
	},
};

/** Store `index` of `seed`: its chats, its forced edge and maybe others, the same every time. */
export function generateStore(seed: number, index: number): GenStore {
	const rng = prng(seed * 1000 + index);
	const forced = CLASSES[index % CLASSES.length]!;
	const multiplexed =
		forced === 'multiplexed-tuple' ||
		(forced !== 'profile-fence' && rng() < 0.2) ||
		(forced === 'profile-fence' && rng() < 0.7);
	const prefix = `s${seed}n${index}`;
	const d = new Draft(rng, multiplexed ? 'work' : 'main', 1_788_250_000 + Math.floor(rng() * 2_592_000), prefix);
	const chats = d.int(1, 3);
	for (let c = 0; c < chats; c++) {
		baseChat(d, c);
	}

	// The edges that make v25's repair-routing fail come only when forced: one on every store would hide the records of
	// the rest.
	const classes: EdgeClass[] = [forced, ...CLASSES.filter(c => c !== forced && !FAILING.has(c) && d.chance(0.1))];
	for (const [i, cls] of classes.entries()) {
		EDGES[cls](d, d.t0 + 100_000 + i * 20_000);
	}

	return {
		name: prefix,
		seed,
		index,
		path: multiplexed ? 'profiles/work/state.db' : 'state.db',
		owner: multiplexed ? 'work' : 'default',
		multiplexed,
		classes,
		sessions: d.sessions,
		keys: d.keys,
	};
}

/** Every store of the committed seeds, in order. */
export function generateAll(seeds: readonly number[] = SEEDS, perSeed = STORES_PER_SEED): GenStore[] {
	return seeds.flatMap(seed => Array.from({length: perSeed}, (_, i) => generateStore(seed, i)));
}

/** The sha256 of what the store holds (its path, rows, messages and chats): the real code judged this exact store. */
export function storeHash(store: GenStore): string {
	const {path, owner, multiplexed, sessions, keys} = store;
	return crypto.createHash('sha256').update(JSON.stringify({path, owner, multiplexed, sessions, keys})).digest('hex');
}
