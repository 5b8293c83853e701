/**
 * The benchmark store: a v30-shape `state.db` with >= 20,000 sessions and >= 1,000,000 messages of
 * 100-800 characters, shaped like a busy Hermes install (docs/hermes-rules.md, schema, identity,
 * lineage): keyed telegram/discord/slack/whatsapp/signal chats with compression and reset chains
 * and their gateway_routing entries, a few thousand local (cli, tui, cron...) sessions, tool and
 * delegate children, branches, empty rows, and a handful of planted orphans (the R1 incident, a
 * lineage orphan, an ambiguous one, a contested pair, a no-predecessor one, a parent-not-keyed one)
 * whose verdicts a correct scan must give.
 *
 * Deterministic (one seeded PRNG), cached under .bench-data/v<GENERATOR_VERSION>/ and rebuilt only
 * when missing. Run alone with `node dist-bench/generate.js [--force]`. With `--scale`, the same
 * generator builds the growth store of #26 (~100,000 sessions, 10M messages, ~5 GB, the word index
 * alone) in .bench-data/scale-v1/: generate-profile.ts holds both sets of counts and says why.
 */
import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import Database from 'better-sqlite3';
import {ftsRebuildSql, ftsSql} from '../dist/simulator/hermes-fts.js';
import {schemaSql} from '../dist/simulator/hermes-schema.js';
import {sessionIdFor} from '../dist/simulator/store-writer.js';
import {BENCH_PROFILE, type GeneratorProfile, SCALE_PROFILE} from './generate-profile.js';

/** Bump whenever the generated data changes: the cache is keyed by it (the counts: generate-profile.ts). */
export const GENERATOR_VERSION = BENCH_PROFILE.version;
export const TARGET_MESSAGES = BENCH_PROFILE.messages;

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;
/** 2026-08-09 00:00:00 UTC: the store's "now". */
export const END = 1_786_233_600;
const SPAN = 120 * DAY;

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DATA_DIR = path.join(ROOT, '.bench-data');

export type ExpectedOrphan = {
	verdict: 'adoptable' | 'refused';
	evidence?: 'lineage' | 'contiguity';
	donorId?: string;
	reasonKind?: string;
};

export type BenchManifest = {
	generatorVersion: number;
	/** The profile's cache folder (absent in manifests written before the scale store: `v3`). */
	profile?: string;
	trigram?: boolean;
	seed: number;
	sessions: number;
	messages: number;
	routingEntries: number;
	chats: number;
	bySource: Record<string, number>;
	generationMs: number;
	dbBytes: number;
	/** Every orphan a correct scan reports (by id), and nothing else. */
	expectedOrphans: Record<string, ExpectedOrphan & {scenario: string}>;
	/** Session keys a correct scan flags as rollback risks, and nothing else. */
	expectedRollbackRisks: string[];
};

export type BenchDb = {dbPath: string; dir: string; manifest: BenchManifest; generatedNow: boolean};

// ---------------------------------------------------------------------------------------------
// Deterministic randomness

function mulberry32(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d_2b_79_f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
	};
}

class Rng {
	private readonly next: () => number;
	constructor(seed: number) {
		this.next = mulberry32(seed);
	}

	float(): number {
		return this.next();
	}

	between(lo: number, hi: number): number {
		return lo + (hi - lo) * this.next();
	}

	int(lo: number, hiInclusive: number): number {
		return lo + Math.floor(this.next() * (hiInclusive - lo + 1));
	}

	pick<T>(items: readonly T[]): T {
		return items[Math.floor(this.next() * items.length)]!;
	}

	weighted<T>(items: ReadonlyArray<readonly [T, number]>): T {
		let r = this.next() * items.reduce((sum, [, w]) => sum + w, 0);
		for (const [item, w] of items) {
			r -= w;
			if (r < 0) {
				return item;
			}
		}

		return items[items.length - 1]![0];
	}

	/** Exponential with the given mean. */
	exp(mean: number): number {
		return -Math.log(1 - this.next()) * mean;
	}

	gauss(): number {
		const u = Math.max(this.next(), 1e-12);
		return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
	}

	hex(length: number): string {
		let s = '';
		while (s.length < length) {
			s += Math.floor(this.next() * 0x1_00_00_00_00)
				.toString(16)
				.padStart(8, '0');
		}

		return s.slice(0, length);
	}
}

// ---------------------------------------------------------------------------------------------
// The plan: every session, its identity, lifetime and message window

type Kind = 'gateway' | 'local' | 'delegate' | 'branch' | 'empty' | 'planted';

type Plan = {
	id: string;
	kind: Kind;
	source: string;
	userId: string | null;
	sessionKey: string | null;
	chatId: string | null;
	chatType: string | null;
	threadId: string | null;
	displayName: string | null;
	originJson: string | null;
	parentId: string | null;
	modelConfig: string | null;
	model: string;
	startedAt: number;
	endedAt: number | null;
	endReason: string | null;
	title: string | null;
	cwd: string | null;
	gitBranch: string | null;
	/** Message window. */
	from: number;
	to: number;
	/** Relative share of the message budget (0: no messages). */
	weight: number;
	/** Set for planted rows: an exact message count. */
	fixedMessages: number | null;
	messages: number;
	/** Chance that an assistant turn calls a tool. */
	toolShare: number;
};

type RoutingRow = {sessionKey: string; sessionId: string; updatedAt: number};

const LOCAL_IDS = new Set([
	'cli',
	'tui',
	'desktop',
	'subagent',
	'cron',
	'kanban',
	'acp',
	'tool',
	'recovered',
	'oneshot',
]);
const MODELS = ['hermes-3-large', 'hermes-3-large', 'hermes-4-405b', 'claude-sonnet-4', 'gpt-5-mini'] as const;
const TOOLS = [
	'web_search',
	'terminal',
	'read_file',
	'write_file',
	'browser_navigate',
	'execute_code',
	'vision_analyze',
	'memory',
	'todo',
	'send_message',
] as const;
const PROJECTS = ['hermes-agent', 'dotfiles', 'infra', 'webapp', 'notes', 'ml-experiments', 'blog', 'scraper'] as const;
const WORDS = (
	'the a to of and in is it you that for on with as this are be at have from or by not but what all can was' +
	(' your when there an will which their if do about how up out them then ' +
		'she many some so these would other into has more') +
	(' time could see him two way who its now find long down day did get come ' +
		'made may part session message gateway restart') +
	' telegram discord slack signal whatsapp routing compression context window summary tool call result error retry' +
	' database schema index query latency timeout backup restore profile agent model token cache reasoning memory file' +
	' terminal command output deploy server config build test branch commit review merge issue plan schedule reminder' +
	' weather travel recipe budget invoice meeting calendar draft email translate explain summarize'
).split(' ');

function corpus(rng: Rng, length: number): string {
	const parts: string[] = [];
	let size = 0;
	let sentence = 0;
	while (size < length) {
		let w = rng.pick(WORDS);
		if (sentence === 0) {
			w = w[0]!.toUpperCase() + w.slice(1);
		}

		sentence++;
		if (sentence > 6 && rng.float() < 0.12) {
			w += rng.float() < 0.8 ? '.' : '?';
			sentence = 0;
		} else if (rng.float() < 0.05) {
			w += ',';
		}

		parts.push(w);
		size += w.length + 1;
	}

	return parts.join(' ');
}

class Planner {
	readonly rng: Rng;
	readonly plans: Plan[] = [];
	readonly routing: RoutingRow[] = [];
	readonly ids = new Set<string>();
	readonly expectedOrphans: BenchManifest['expectedOrphans'] = {};
	readonly expectedRollbackRisks: string[] = [];
	chats = 0;
	private titles = 0;

	constructor(seed: number) {
		this.rng = new Rng(seed);
	}

	newId(startedAt: number, source: string): string {
		for (;;) {
			const id = sessionIdFor(startedAt, this.rng.hex(LOCAL_IDS.has(source) ? 6 : 8));
			if (!this.ids.has(id)) {
				this.ids.add(id);
				return id;
			}
		}
	}

	title(prefix: string): string {
		return `${prefix} #${++this.titles}`;
	}

	add(
		p: Omit<
			Plan,
			| 'id'
			| 'messages'
			| 'model'
			| 'title'
			| 'cwd'
			| 'gitBranch'
			| 'toolShare'
			| 'fixedMessages'
			| 'modelConfig'
			| 'parentId'
			| 'endedAt'
			| 'endReason'
		> &
			Partial<Plan>,
	): Plan {
		const plan: Plan = {
			...p,
			id: p.id ?? this.newId(p.startedAt, p.source),
			messages: 0,
			model: p.model ?? this.rng.pick(MODELS),
			title: p.title ?? null,
			cwd: p.cwd ?? null,
			gitBranch: p.gitBranch ?? null,
			toolShare: p.toolShare ?? 0.15,
			fixedMessages: p.fixedMessages ?? null,
			modelConfig: p.modelConfig ?? null,
			parentId: p.parentId ?? null,
			endedAt: p.endedAt ?? null,
			endReason: p.endReason ?? null,
		};
		this.plans.push(plan);
		return plan;
	}

	origin(
		platform: string,
		chatId: string,
		chatType: string,
		userId: string,
		userName: string,
		threadId: string | null,
		extra: Record<string, unknown> = {},
	): string {
		return JSON.stringify({
			platform,
			chat_id: chatId,
			chat_name: userName,
			chat_type: chatType,
			user_id: userId,
			user_name: userName,
			thread_id: threadId,
			chat_topic: null,
			...extra,
		});
	}

	/** One keyed chat: a chain of sessions (compression continuations and reset successors) and its routing entry. */
	chat(): number {
		const r = this.rng;
		const n = ++this.chats;
		const platform = r.weighted([
			['telegram', 40],
			['discord', 25],
			['slack', 20],
			['whatsapp', 10],
			['signal', 5],
		] as const);
		const chatType =
			platform === 'discord'
				? r.weighted([
						['dm', 50],
						['group', 35],
						['thread', 15],
					] as const)
				: platform === 'slack'
					? r.weighted([
							['dm', 60],
							['channel', 40],
						] as const)
					: r.weighted([
							['dm', 80],
							['group', 20],
						] as const);
		const userId = `${platform.slice(0, 2)}-u${n}`;
		const userName = `user ${n}`;
		let chatId: string;
		switch (platform) {
			case 'telegram': {
				chatId = chatType === 'dm' ? String(100_000_000 + n * 7919) : `-100${2_000_000_000 + n * 131}`;
				break;
			}

			case 'discord': {
				chatId = String(1_100_000_000_000_000_000n + BigInt(n) * 104_729n);
				break;
			}

			case 'slack': {
				chatId = `${chatType === 'dm' ? 'D' : 'C'}0${(n * 7_777_777).toString(36).toUpperCase()}`;
				break;
			}

			case 'whatsapp': {
				chatId = `${4_915_100_000_000 + n * 17}@s.whatsapp.net`;
				break;
			}

			default: {
				chatId = `${r.hex(8)}-${r.hex(4)}-4${r.hex(3)}-a${r.hex(3)}-${r.hex(12)}`;
			}
		}

		const threadId = chatType === 'thread' ? String(1_200_000_000_000_000_000n + BigInt(n)) : null;
		const scope = platform === 'slack' ? ':T0HERMES' : '';
		const key =
			chatType === 'dm'
				? `agent:main:${platform}:dm${scope}:${chatId}`
				: chatType === 'thread'
					? `agent:main:${platform}:thread:${chatId}:thread_${threadId}`
					: `agent:main:${platform}:${chatType}${scope}:${chatId}:${userId}`;
		const origin = this.origin(
			platform,
			chatId,
			chatType,
			userId,
			userName,
			threadId,
			platform === 'slack' ? {scope_id: 'T0HERMES'} : {},
		);
		const identity = {
			source: platform,
			userId,
			sessionKey: key,
			chatId,
			chatType,
			threadId,
			displayName: userName,
			originJson: origin,
		};

		const length = Math.min(60, 1 + Math.floor(r.exp(7.5)));
		let t = END - SPAN + r.float() * (SPAN - 5 * DAY);
		let previous: Plan | null = null;
		let viaCompression = false;
		const chain: Plan[] = [];
		for (let i = 0; i < length; i++) {
			const startedAt = t;
			const from = startedAt + r.between(2, 30);
			let to = startedAt + Math.min(4 * DAY, Math.max(5 * MINUTE, r.exp(10 * HOUR)));
			if (to > END - MINUTE) {
				to = END - MINUTE - r.float() * HOUR;
			}

			if (to < from + MINUTE) {
				break;
			}

			const resetSuccessor = previous !== null && !viaCompression;
			const plan = this.add({
				...identity,
				kind: 'gateway',
				startedAt,
				from,
				to,
				weight: Math.exp(r.gauss() * 0.8) * 60,
				parentId: previous && (viaCompression || r.float() < 0.5) ? previous.id : null,
				modelConfig: resetSuccessor && r.float() < 0.5 ? JSON.stringify({_reset_from: previous!.id}) : null,
				title: r.float() < 0.1 ? this.title(`${platform} chat ${n}`) : null,
			});
			chain.push(plan);
			previous = plan;
			// How this session ends, if another follows.
			if (r.float() < 0.65) {
				plan.endedAt = to + r.between(1, 20);
				plan.endReason = 'compression';
				viaCompression = true;
				t = plan.endedAt + r.between(0.05, 1);
			} else {
				const reason = r.weighted([
					['idle', 50],
					['daily', 25],
					['session_reset', 20],
					['session_switch', 5],
				] as const);
				plan.endedAt =
					to +
					(reason === 'session_reset' || reason === 'session_switch' ? r.between(5, 600) : r.between(HOUR, 8 * HOUR));
				plan.endReason = reason;
				viaCompression = false;
				t = plan.endedAt + Math.max(MINUTE, r.exp(2 * DAY));
			}

			if (t > END - 2 * HOUR) {
				break;
			}
		}

		if (chain.length === 0) {
			return 0;
		}

		// The tip: mostly live; some chats went dormant (idle) or were closed by accident (recoverable).
		const tip = chain[chain.length - 1]!;
		const fate = r.float();
		tip.endedAt = null;
		tip.endReason = null;
		if (fate > 0.85 && tip.to + HOUR < END) {
			tip.endedAt = tip.to + HOUR;
			tip.endReason = fate > 0.95 ? 'agent_close' : 'idle';
		}

		const entryFate = r.float();
		if (entryFate >= 0.08) {
			// A routing entry left on the compression parent is healed along the chain by the gateway.
			const beforeTip = chain.length > 1 ? chain[chain.length - 2]! : null;
			const target = entryFate < 0.23 && beforeTip?.endReason === 'compression' ? beforeTip : tip;
			this.routing.push({sessionKey: key, sessionId: target.id, updatedAt: target.startedAt + 1});
		}

		return chain.length;
	}

	local(): void {
		const r = this.rng;
		const source = r.weighted([
			['cli', 74],
			['tui', 10],
			['desktop', 6],
			['cron', 6],
			['acp', 2],
			['kanban', 2],
		] as const);
		const run = 1 + Math.floor(r.exp(0.35));
		let t = END - SPAN + r.float() * (SPAN - DAY);
		const project = r.pick(PROJECTS);
		let previous: Plan | null = null;
		for (let i = 0; i < run; i++) {
			const from = t + r.between(1, 10);
			const to = Math.min(END - MINUTE, t + Math.max(2 * MINUTE, r.exp(1.5 * HOUR)));
			if (to < from + MINUTE) {
				break;
			}

			const plan = this.add({
				source,
				kind: 'local',
				userId: null,
				sessionKey: null,
				chatId: null,
				chatType: null,
				threadId: null,
				displayName: null,
				originJson: null,
				startedAt: t,
				from,
				to,
				weight: Math.exp(r.gauss() * 0.9) * 45,
				parentId: previous?.id ?? null,
				cwd: source === 'cli' || source === 'tui' ? `/home/dev/src/${project}` : null,
				gitBranch:
					source === 'cli' || source === 'tui' ? r.pick(['main', 'main', 'feat/routing', 'fix/wal', 'dev']) : null,
				title: r.float() < 0.6 ? this.title(`${project} ${source}`) : null,
				toolShare: 0.35,
				endedAt: to + r.between(1, 120),
				endReason:
					source === 'cli'
						? r.weighted([
								['cli_close', 80],
								['new_session', 15],
								['user_exit', 5],
							] as const)
						: source === 'tui'
							? r.pick(['tui_close', 'tui_shutdown'])
							: 'agent_close',
			});
			if (previous) {
				previous.endedAt = Math.min(previous.endedAt ?? previous.to + 1, t - 0.5);
				previous.endReason = 'compression';
			}

			previous = plan;
			t = plan.endedAt! + r.between(0.05, 1);
			if (t > END - HOUR) {
				break;
			}
		}

		if (previous && r.float() < 0.03) {
			previous.endedAt = null;
			previous.endReason = null;
		}
	}

	delegate(parents: readonly Plan[]): void {
		const r = this.rng;
		const parent = r.pick(parents);
		const startedAt = r.between(parent.from, parent.to);
		const to = Math.min(END - MINUTE, startedAt + Math.max(MINUTE, r.exp(6 * MINUTE)));
		const source = r.weighted([
			['tool', 40],
			['subagent', 30],
			[parent.source, 30],
		] as const);
		this.add({
			source,
			kind: 'delegate',
			userId: source === parent.source ? parent.userId : null,
			sessionKey: null,
			chatId: null,
			chatType: null,
			threadId: null,
			displayName: null,
			originJson: null,
			startedAt,
			from: startedAt + r.between(0.2, 3),
			to: Math.max(to, startedAt + 30),
			weight: Math.exp(r.gauss() * 0.7) * 12,
			parentId: parent.id,
			modelConfig: JSON.stringify({_delegate_from: parent.id, max_iterations: 20}),
			toolShare: 0.6,
			endedAt: to + r.between(0.5, 5),
			endReason: 'agent_close',
		});
	}

	branch(parents: readonly Plan[]): void {
		const r = this.rng;
		const parent = r.pick(parents);
		const startedAt = r.between(parent.from, parent.to);
		const to = Math.min(END - MINUTE, startedAt + Math.max(5 * MINUTE, r.exp(2 * HOUR)));
		const ended = r.float() < 0.7;
		this.add({
			source: parent.source,
			kind: 'branch',
			userId: parent.userId,
			sessionKey: null,
			chatId: null,
			chatType: null,
			threadId: null,
			displayName: parent.displayName,
			originJson: null,
			startedAt,
			from: startedAt + r.between(1, 10),
			to: Math.max(to, startedAt + 2 * MINUTE),
			weight: Math.exp(r.gauss() * 0.8) * 20,
			parentId: parent.id,
			modelConfig: JSON.stringify({_branched_from: parent.id}),
			title: this.title(`branch of ${parent.id}`),
			endedAt: ended ? to + r.between(10, 600) : null,
			endReason: ended ? r.pick(['cli_close', 'session_switch', 'agent_close']) : null,
		});
	}

	empty(): void {
		const r = this.rng;
		const startedAt = END - SPAN + r.float() * (SPAN - HOUR);
		const gatewaySource = r.float() < 0.6;
		const ended = r.float() < 0.5;
		this.add({
			source: gatewaySource ? r.pick(['telegram', 'discord', 'slack']) : 'cli',
			kind: 'empty',
			userId: null,
			sessionKey: null,
			chatId: null,
			chatType: null,
			threadId: null,
			displayName: null,
			originJson: null,
			startedAt,
			from: startedAt,
			to: startedAt,
			weight: 0,
			endedAt: ended ? startedAt + r.between(1, 30) : null,
			endReason: ended ? (gatewaySource ? 'agent_close' : 'cli_close') : null,
		});
	}

	/** A keyed chat row for the planted scenarios (a dedicated user, so no random row interferes). */
	private keyed(
		source: string,
		user: string,
		key: string,
		chatId: string,
		chatType: string,
		startedAt: number,
		count: number,
		span: number,
		extra: Partial<Plan> = {},
	): Plan {
		return this.add({
			source,
			kind: 'planted',
			userId: user,
			sessionKey: key,
			chatId,
			chatType,
			threadId: null,
			displayName: user,
			originJson: this.origin(source, chatId, chatType, user, user, null),
			startedAt,
			from: startedAt + 5,
			to: startedAt + span,
			weight: 0,
			fixedMessages: count,
			...extra,
		});
	}

	/** A keyless gateway row holding messages: what repair-routing calls an orphan. */
	private keyless(
		source: string,
		user: string | null,
		startedAt: number,
		count: number,
		span: number,
		extra: Partial<Plan> = {},
	): Plan {
		return this.add({
			source,
			kind: 'planted',
			userId: user,
			sessionKey: null,
			chatId: null,
			chatType: null,
			threadId: null,
			displayName: null,
			originJson: null,
			startedAt,
			from: startedAt + 5,
			to: startedAt + span,
			weight: 0,
			fixedMessages: count,
			...extra,
		});
	}

	/** The scenarios of docs/scenarios.md that leave findings, placed in the last days of the store. */
	planted(): void {
		const risk = (key: string) => this.expectedRollbackRisks.push(key);
		const orphan = (p: Plan, scenario: string, e: ExpectedOrphan) => {
			this.expectedOrphans[p.id] = {scenario, ...e};
		};

		// R1, the incident: the keyed DM row went quiet after a compression; a keyless telegram row
		// of the same user collected 798 messages over 2.7 days. A restart resumes the zombie.
		{
			const key = 'agent:main:telegram:dm:777001';
			const t0 = END - 9 * DAY;
			const parent = this.keyed('telegram', 'tg-incident', key, '777001', 'dm', t0, 120, 6 * HOUR, {
				endedAt: t0 + 6 * HOUR + 10,
				endReason: 'compression',
			});
			const zombie = this.keyed('telegram', 'tg-incident', key, '777001', 'dm', t0 + 6 * HOUR + 11, 30, 15 * MINUTE, {
				parentId: parent.id,
			});
			const o = this.keyless('telegram', 'tg-incident', zombie.to + 60, 798, 2.7 * DAY);
			this.routing.push({sessionKey: key, sessionId: zombie.id, updatedAt: zombie.startedAt + 1});
			orphan(o, 'R1 incident', {verdict: 'adoptable', evidence: 'contiguity', donorId: zombie.id});
			risk(key);
		}

		// R2: a keyless discord row whose parent is a keyed row of the same source.
		{
			const key = 'agent:main:discord:group:9001:dc-bench-bob';
			const t0 = END - 6 * DAY;
			const donor = this.keyed('discord', 'dc-bench-bob', key, '9001', 'group', t0, 12, 10 * MINUTE);
			const o = this.keyless('discord', 'dc-bench-bob', t0 + 5 * HOUR, 20, HOUR, {parentId: donor.id});
			this.routing.push({sessionKey: key, sessionId: donor.id, updatedAt: t0 + 1});
			orphan(o, 'R2 lineage', {verdict: 'adoptable', evidence: 'lineage', donorId: donor.id});
			risk(key);
		}

		// R3: two keyed rows of one user fall quiet inside the orphan's window: ambiguous.
		{
			const t0 = END - 5 * DAY;
			this.keyed('slack', 'sl-bench-carol', 'agent:main:slack:dm:T0HERMES:DB01', 'DB01', 'dm', t0, 10, 5 * MINUTE);
			this.keyed(
				'slack',
				'sl-bench-carol',
				'agent:main:slack:dm:T0HERMES:DB02',
				'DB02',
				'dm',
				t0 + MINUTE,
				4,
				3 * MINUTE,
			);
			const o = this.keyless('slack', 'sl-bench-carol', t0 + 10 * MINUTE, 16, 10 * MINUTE);
			orphan(o, 'R3 ambiguous', {verdict: 'refused', reasonKind: 'ambiguous_predecessor'});
		}

		// R4: two orphans claim the same single donor: both refused.
		{
			const t0 = END - 4.5 * DAY;
			this.keyed(
				'whatsapp',
				'wa-bench-dan',
				'agent:main:whatsapp:dm:4915199990000@s.whatsapp.net',
				'4915199990000@s.whatsapp.net',
				'dm',
				t0,
				14,
				7 * MINUTE,
			);
			const first = this.keyless('whatsapp', 'wa-bench-dan', t0 + 8 * MINUTE, 6, 3 * MINUTE);
			const second = this.keyless('whatsapp', 'wa-bench-dan', t0 + 9 * MINUTE, 6, 3 * MINUTE);
			orphan(first, 'R4 contested', {verdict: 'refused', reasonKind: 'contested_donor'});
			orphan(second, 'R4 contested', {verdict: 'refused', reasonKind: 'contested_donor'});
		}

		// R5: the nearest keyed predecessor went quiet two hours before.
		{
			const t0 = END - 3.5 * DAY;
			this.keyed('signal', 'si-bench-erin', 'agent:main:signal:dm:sig-bench-1', 'sig-bench-1', 'dm', t0, 8, 4 * MINUTE);
			const o = this.keyless('signal', 'si-bench-erin', t0 + 2 * HOUR, 10, 5 * MINUTE);
			orphan(o, 'R5 no predecessor', {verdict: 'refused', reasonKind: 'no_predecessor'});
		}

		// R8: a keyless telegram row whose parent is a cli session.
		{
			const t0 = END - 3 * DAY;
			const cliParent = this.keyless('cli', null, t0, 4, 3 * MINUTE, {
				endedAt: t0 + 9 * MINUTE,
				endReason: 'cli_close',
			});
			const o = this.keyless('telegram', 'tg-bench-r8', t0 + 10 * MINUTE, 6, 3 * MINUTE, {parentId: cliParent.id});
			orphan(o, 'R8 parent not keyed', {verdict: 'refused', reasonKind: 'parent_not_keyed'});
		}
	}
}

function plan(profile: GeneratorProfile): Planner {
	const p = new Planner(profile.seed);
	p.planted();
	let gateway = 0;
	while (gateway < profile.gatewaySessions) {
		gateway += p.chat();
	}

	for (let i = 0; i < profile.localSessions; ) {
		const before = p.plans.length;
		p.local();
		i += p.plans.length - before;
	}

	const parents = p.plans.filter(x => (x.kind === 'gateway' || x.kind === 'local') && x.weight > 0);
	for (let i = 0; i < profile.delegateSessions; i++) {
		p.delegate(parents);
	}

	for (let i = 0; i < profile.branchSessions; i++) {
		p.branch(parents);
	}

	for (let i = 0; i < profile.emptySessions; i++) {
		p.empty();
	}

	if (p.plans.length < profile.minSessions) {
		throw new Error(`internal: planned ${p.plans.length} sessions, need ${profile.minSessions}`);
	}

	// Message budget: planted rows get exact counts, the rest share what is left by weight.
	const fixed = p.plans.reduce((sum, x) => sum + (x.fixedMessages ?? 0), 0);
	const shared = p.plans.filter(x => x.fixedMessages === null && x.weight > 0);
	const budget = profile.messages - fixed;
	const totalWeight = shared.reduce((sum, x) => sum + x.weight, 0);
	let allocated = 0;
	for (const x of shared) {
		x.messages = Math.max(2, Math.floor((x.weight / totalWeight) * budget));
		allocated += x.messages;
	}

	// Settle the rounding on the heaviest rows, one message each, until the total is exact.
	const heaviest = [...shared].sort((a, b) => b.weight - a.weight);
	for (
		let i = 0, guard = 0;
		allocated !== budget && guard < 100 * heaviest.length;
		i = (i + 1) % heaviest.length, guard++
	) {
		const x = heaviest[i]!;
		const step = allocated < budget ? 1 : x.messages > 2 ? -1 : 0;
		x.messages += step;
		allocated += step;
	}

	for (const x of p.plans) {
		if (x.fixedMessages !== null) {
			x.messages = x.fixedMessages;
		}
	}

	p.plans.sort((a, b) => a.startedAt - b.startedAt);
	return p;
}

// ---------------------------------------------------------------------------------------------
// Writing

const ROLE_USER = 0;
const ROLE_ASSISTANT = 1;
const ROLE_TOOL = 2;
const ROLE_TOOL_CALL = 3;
const ROLE_NAMES = ['user', 'assistant', 'tool', 'assistant'] as const;

function write(
	dbPath: string,
	planner: Planner,
	profile: GeneratorProfile,
	log: (line: string) => void,
): {messages: number} {
	const {plans, rng} = planner;
	const total = plans.reduce((sum, x) => sum + x.messages, 0);
	// Every message's time, session and role, then one global time order: concurrent chats interleave in rowid order as
	// they do in a live store.
	const ts = new Float64Array(total);
	const owner = new Uint32Array(total);
	const roles = new Uint8Array(total);
	const newest = new Float64Array(plans.length);
	const toolCalls = new Uint32Array(plans.length);
	let k = 0;
	for (const [i, x] of plans.entries()) {
		const step = (x.to - x.from) / Math.max(1, x.messages);
		let role = ROLE_USER;
		for (let j = 0; j < x.messages; j++) {
			ts[k] = x.from + (j + 0.1 + 0.8 * rng.float()) * step;
			owner[k] = i;
			if (j > 0) {
				role =
					role === ROLE_TOOL_CALL
						? ROLE_TOOL
						: role === ROLE_USER || role === ROLE_TOOL
							? rng.float() < x.toolShare
								? ROLE_TOOL_CALL
								: ROLE_ASSISTANT
							: ROLE_USER;
			}

			roles[k] = role;
			if (role === ROLE_TOOL_CALL) {
				toolCalls[i]!++;
			}

			newest[i] = ts[k]!;
			k++;
		}
	}

	const order = new Uint32Array(total);
	for (let i = 0; i < total; i++) {
		order[i] = i;
	}

	order.sort((a, b) => ts[a]! - ts[b]! || a - b);

	const db = new Database(dbPath);
	try {
		db.pragma('journal_mode = wal');
		db.pragma('synchronous = off');
		db.pragma('cache_size = -1048576');
		db.exec(schemaSql('v30'));

		const insertSession = db.prepare(
			`INSERT INTO sessions (id, source, created_source, user_id, session_key, chat_id, ` +
				`chat_type, thread_id, display_name, origin_json,
			model, model_config, parent_session_id, started_at, ended_at, end_reason, message_count, ` +
				`tool_call_count, input_tokens, output_tokens,
			cache_read_tokens, reasoning_tokens, cwd, git_branch, billing_provider, estimated_cost_usd, ` +
				`title, last_activity_at, api_call_count)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		);
		db.transaction(() => {
			for (const [i, x] of plans.entries()) {
				const turns = Math.ceil(x.messages / 2);
				const input = turns * 2400 + toolCalls[i]! * 900;
				const output = x.messages * 180;
				insertSession.run(
					x.id,
					x.source,
					x.source,
					x.userId,
					x.sessionKey,
					x.chatId,
					x.chatType,
					x.threadId,
					x.displayName,
					x.originJson,
					x.model,
					x.modelConfig,
					x.parentId,
					x.startedAt,
					x.endedAt,
					x.endReason,
					x.messages,
					toolCalls[i]!,
					input,
					output,
					Math.floor(input * 0.6),
					Math.floor(output * 0.2),
					x.cwd,
					x.gitBranch,
					'nous',
					Math.round(input * 0.000_003 * 1e6) / 1e6,
					x.title,
					x.messages > 0 ? newest[i]! : null,
					turns,
				);
			}

			const route = db.prepare(
				'INSERT OR REPLACE INTO gateway_routing (scope, session_key, entry_json, updated_at) VALUES (?, ?, ?, ?)',
			);
			for (const e of planner.routing) {
				const at = new Date(e.updatedAt * 1000).toISOString();
				route.run(
					'/home/hermes/.hermes/sessions',
					e.sessionKey,
					JSON.stringify({session_key: e.sessionKey, session_id: e.sessionId, created_at: at, updated_at: at}),
					e.updatedAt,
				);
			}
		})();

		const text = corpus(rng, 1 << 21);
		const insertMessage = db.prepare(
			`INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, ` +
				`timestamp, token_count, finish_reason, platform_message_id)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		);
		const batch = 100_000;
		const started = performance.now();
		for (let lo = 0; lo < total; lo += batch) {
			db.transaction(() => {
				const hi = Math.min(total, lo + batch);
				for (let n = lo; n < hi; n++) {
					const m = order[n]!;
					const x = plans[owner[m]!]!;
					const role = roles[m]!;
					const length = rng.int(profile.minChars, profile.maxChars);
					const at = rng.int(0, text.length - length - 1);
					const content = text.slice(at, at + length);
					const tool =
						role === ROLE_TOOL_CALL || role === ROLE_TOOL
							? TOOLS[(role === ROLE_TOOL ? m - 1 : m) % TOOLS.length]!
							: null;
					const callId = tool ? `call_${(role === ROLE_TOOL ? m - 1 : m).toString(36)}` : null;
					insertMessage.run(
						x.id,
						ROLE_NAMES[role]!,
						content,
						role === ROLE_TOOL ? callId : null,
						role === ROLE_TOOL_CALL
							? JSON.stringify([
									{
										id: callId,
										type: 'function',
										function: {name: tool, arguments: JSON.stringify({query: content.slice(0, 40)})},
									},
								])
							: null,
						role === ROLE_TOOL ? tool : null,
						ts[m]!,
						Math.ceil(length / 4),
						role === ROLE_ASSISTANT ? 'stop' : role === ROLE_TOOL_CALL ? 'tool_calls' : null,
						role === ROLE_USER && x.sessionKey ? String(10_000 + m) : null,
					);
				}
			})();
			const done = Math.min(total, lo + batch);
			if (done % 1_000_000 === 0 || done === total) {
				log(
					`  ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} ` +
						`messages (${((performance.now() - started) / 1000).toFixed(1)} s)`,
				);
			}
		}

		// Hermes' v23+ full-text indexes (external content, trigram), built once over every row as its rebuild does (hfx
		// search reads them).
		const indexing = performance.now();
		db.exec(ftsSql('external'));
		if (profile.trigram) {
			db.exec(ftsRebuildSql('external'));
		} else {
			// The scale store: the word index alone (generate-profile.ts says why).
			db.exec(
				'DROP TRIGGER messages_fts_trigram_insert; DROP TABLE messages_fts_trigram; ' +
					'DROP VIEW messages_fts_trigram_src;',
			);
			db.exec("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');");
		}

		log(`  full-text indexes built (${((performance.now() - indexing) / 1000).toFixed(1)} s)`);
		db.pragma('wal_checkpoint(TRUNCATE)');
	} finally {
		// A clean close: the last connection checkpoints and removes -wal and -shm.
		db.close();
	}

	return {messages: total};
}

export function benchDir(profile: GeneratorProfile = BENCH_PROFILE): string {
	return path.join(DATA_DIR, profile.dirName);
}

/** Returns the cached benchmark store (or, with `profile`, the scale store), generating it first when it is missing. */
export function ensureBenchDb(
	options: {force?: boolean; log?: (line: string) => void; profile?: GeneratorProfile} = {},
): BenchDb {
	const log = options.log ?? (line => process.stdout.write(`${line}\n`));
	const profile = options.profile ?? BENCH_PROFILE;
	const dir = benchDir(profile);
	const dbPath = path.join(dir, 'state.db');
	const manifestPath = path.join(dir, 'manifest.json');
	if (!options.force && fs.existsSync(manifestPath) && fs.existsSync(dbPath)) {
		const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as BenchManifest;
		if (manifest.generatorVersion === profile.version) {
			return {dbPath, dir, manifest, generatedNow: false};
		}
	}

	fs.mkdirSync(DATA_DIR, {recursive: true});
	const partial = path.join(DATA_DIR, `${profile.dirName}.partial-${process.pid}`);
	fs.rmSync(partial, {recursive: true, force: true});
	fs.mkdirSync(partial);
	log(
		`generating the benchmark store (${profile.dirName}, version ${profile.version}) ` +
			`in ${path.relative(ROOT, dir)}/ ...`,
	);
	const started = performance.now();
	const planner = plan(profile);
	log(
		`  planned ${planner.plans.length.toLocaleString('en-US')} sessions ` +
			`in ${planner.chats.toLocaleString('en-US')} chats ` +
			`(${((performance.now() - started) / 1000).toFixed(1)} s)`,
	);
	const partialDb = path.join(partial, 'state.db');
	const {messages} = write(partialDb, planner, profile, log);
	const generationMs = performance.now() - started;
	const bySource: Record<string, number> = {};
	for (const x of planner.plans) {
		bySource[x.source] = (bySource[x.source] ?? 0) + 1;
	}

	const manifest: BenchManifest = {
		generatorVersion: profile.version,
		...(profile === BENCH_PROFILE ? {} : {profile: profile.dirName, trigram: profile.trigram}),
		seed: profile.seed,
		sessions: planner.plans.length,
		messages,
		routingEntries: planner.routing.length,
		chats: planner.chats,
		bySource: Object.fromEntries(Object.entries(bySource).sort(([, a], [, b]) => b - a)),
		generationMs: Math.round(generationMs),
		dbBytes: fs.statSync(partialDb).size,
		expectedOrphans: planner.expectedOrphans,
		expectedRollbackRisks: planner.expectedRollbackRisks.sort(),
	};
	fs.writeFileSync(path.join(partial, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
	fs.rmSync(dir, {recursive: true, force: true});
	fs.renameSync(partial, dir);
	log(
		`generated ${manifest.sessions.toLocaleString('en-US')} ` +
			`sessions, ${manifest.messages.toLocaleString('en-US')} ` +
			`messages, ${(manifest.dbBytes / 1e6).toFixed(0)} MB ` +
			`in ${(generationMs / 1000).toFixed(1)} s`,
	);
	return {dbPath, dir, manifest, generatedNow: true};
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	ensureBenchDb({
		force: process.argv.includes('--force'),
		profile: process.argv.includes('--scale') ? SCALE_PROFILE : BENCH_PROFILE,
	});
}
