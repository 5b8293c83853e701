/**
 * A simulated Hermes gateway for `hfx demo`: a child process that writes a schema-v30 store live.
 * Chats talk; an idle reset rotates one chat; a compression rotates another; and about a minute
 * in, the incident: a rotation whose identity write fails, leaving the old keyed row (the zombie)
 * open and the routing entry on it, while the conversation continues in a new row without routing
 * identity (the orphan, a gateway id with 8 hex). The rollback risk appears as the orphan gets its
 * first message. 45 s later the gateway restarts and the rollback happens (issue #23): it resumes
 * the zombie as Hermes does (restart.ts: reopen, the routing scope rewritten at the restart) and
 * the chat's later turns go into the zombie, each with the gateway's per-turn writes; the orphan
 * keeps the real conversation and gets nothing more. From then on the store looks healthy to a
 * "what would a restart resume?" check: the question is what already happened.
 *
 *   node dist/simulator/gateway.js --home DIR [--speed N] [--seed N] [--restart-at SECONDS|never]
 *
 * Prints one JSON line per event on stdout ({"event":"ready"}, {"event":"incident",...},
 * {"event":"restart","resumed":K,"orphan":O}). `--restart-at` moves the restart (seconds at speed 1
 * after start) or leaves it out.
 */
import fs from 'node:fs';
import path from 'node:path';
import {ownSignals} from '../ground/interrupts.js';
import {gatewayTurns, resumeAfterRestart} from './restart.js';
import {StoreWriter} from './store-writer.js';

export type GatewayPlan = {
	/** Seconds (at speed 1) after start. */
	idleResetAt: number;
	compressionAt: number;
	incidentAt: number;
	/** The gateway restarts and resumes the zombie (null: it never restarts). */
	restartAt: number | null;
	/** Mean seconds between messages across all chats. */
	messageEvery: number;
};

export const DEFAULT_PLAN: GatewayPlan = {
	idleResetAt: 20,
	compressionAt: 38,
	incidentAt: 60,
	restartAt: 105,
	messageEvery: 1.5,
};

type Chat = {
	key: string;
	platform: string;
	chatId: string;
	chatType: string;
	userId: string;
	name: string;
	current: string;
};

const LINES = [
	'can you check the deploy logs?',
	'the webhook retried three times',
	"summarise yesterday's thread",
	'what did we decide about the cache?',
	'here is the stack trace',
	'ok, ship it',
	'remind me at 5',
	'which PR broke the build?',
	'draft a reply to the vendor',
	'the cron job failed again',
];

function arg(name: string, fallback: string): string {
	const i = process.argv.indexOf(name);
	return i === -1 ? fallback : (process.argv[i + 1] ?? fallback);
}

function say(event: Record<string, unknown>): void {
	process.stdout.write(`${JSON.stringify(event)}\n`);
}

export function seedHistory(w: StoreWriter, now: number, chats: Chat[]): void {
	const day = 86_400;
	// Yesterday's conversations in each chat, reset overnight (daily), today's row live.
	for (const c of chats) {
		const old = w.createSession({
			source: c.platform,
			userId: c.userId,
			sessionKey: c.key,
			chatId: c.chatId,
			chatType: c.chatType,
			displayName: c.name,
			profileName: 'default',
			startedAt: now - day - 3600,
			title: `${c.name}: yesterday`,
		});
		w.addConversation(old, 24, now - day - 3500, now - day - 600);
		w.endSession(old, now - day * 0.5, 'daily');
		c.current = w.createSession({
			source: c.platform,
			userId: c.userId,
			sessionKey: c.key,
			chatId: c.chatId,
			chatType: c.chatType,
			displayName: c.name,
			profileName: 'default',
			parentSessionId: old,
			modelConfig: {_reset_from: old},
			startedAt: now - 1800,
		});
		w.addConversation(c.current, 8, now - 1700, now - 120);
	}

	for (let i = 0; i < 3; i++) {
		const cli = w.createSession({
			source: 'cli',
			profileName: 'default',
			startedAt: now - (i + 2) * 7200,
			title: `local session ${i + 1}`,
		});
		w.addConversation(cli, 6 + i * 4, now - (i + 2) * 7200 + 60, now - (i + 2) * 7200 + 1500);
		w.endSession(cli, now - (i + 2) * 7200 + 1600, 'cli_close');
	}
}

/** The running simulation: the writer, its chats, the plan's clock and what has happened so far. */
type Demo = {
	w: StoreWriter;
	chats: Chat[];
	plan: GatewayPlan;
	/** Wall-clock ms at which the plan's second `seconds` falls, at this speed. */
	at: (seconds: number) => number;
	done: Set<string>;
	orphan: string | null;
	/** The gateway has restarted and resumed the zombie: chat 0 writes into it again. */
	restarted: boolean;
	n: number;
};

const clock = () => Date.now() / 1000;

/** A chat's next row, carrying its identity (a reset successor or a compression continuation). */
function successor(d: Demo, c: Chat, reason: 'idle' | 'compression'): string {
	d.w.endSession(c.current, clock(), reason);
	const next = d.w.createSession({
		source: c.platform,
		userId: c.userId,
		sessionKey: c.key,
		chatId: c.chatId,
		chatType: c.chatType,
		displayName: c.name,
		profileName: 'default',
		parentSessionId: c.current,
		...(reason === 'idle' ? {modelConfig: {_reset_from: c.current}} : {}),
		startedAt: clock(),
	});
	d.w.setRouting(c.key, next, clock());
	say({event: reason === 'idle' ? 'idle-reset' : 'compression', from: c.current, to: next});
	return next;
}

/**
 * The plan's four events, each once, when its time has come: an idle reset, a compression, the incident, the restart.
 */
function dueEvents(d: Demo): void {
	const now = Date.now();
	if (!d.done.has('idle') && now >= d.at(d.plan.idleResetAt)) {
		d.done.add('idle');
		d.chats[2]!.current = successor(d, d.chats[2]!, 'idle');
	}

	if (!d.done.has('compression') && now >= d.at(d.plan.compressionAt)) {
		d.done.add('compression');
		d.chats[1]!.current = successor(d, d.chats[1]!, 'compression');
	}

	if (!d.done.has('incident') && now >= d.at(d.plan.incidentAt)) {
		d.done.add('incident');
		const c = d.chats[0]!;
		// The rotation's identity write fails: the new row has no session key, no chat, no user;
		// the predecessor is never ended and the routing entry still names it.
		d.orphan = d.w.createSession({source: c.platform, startedAt: clock()});
		say({event: 'incident', zombie: c.current, orphan: d.orphan});
	}

	if (!d.done.has('restart') && d.orphan && d.plan.restartAt !== null && now >= d.at(d.plan.restartAt)) {
		d.done.add('restart');
		const c = d.chats[0]!;
		// The restart: the in-memory routing is gone, the finder sees only the keyed zombie; it is
		// reopened and published (the whole routing scope rewritten now).
		resumeAfterRestart(d.w.db, {sessionKey: c.key, resumedId: c.current, restartAt: clock()});
		d.restarted = true;
		say({event: 'restart', resumed: c.current, orphan: d.orphan});
	}
}

/** One turn (a user line and the reply) in the next chat, then the next step after a jittered pause. */
function step(d: Demo, speed: number): void {
	dueEvents(d);
	const c = d.chats[d.n % d.chats.length]!;
	const t = clock();
	// The reply lands 0.4 s later at speed 1: scaled like every delay, so a chat's reply never
	// falls after the next turn of another row (at speed 10 turns come every ~75 ms).
	const replyAt = t + 0.4 / speed;
	const user = LINES[d.n++ % LINES.length]!;
	const reply = `on it: ${LINES[(d.n * 7) % LINES.length]!}`;
	if (c === d.chats[0] && d.restarted) {
		// After the restart: the gateway's per-turn writes into the resumed zombie.
		gatewayTurns(d.w.db, {
			sessionKey: c.key,
			sessionId: c.current,
			turns: [
				{role: 'user', content: user, at: t},
				{role: 'assistant', content: reply, at: replyAt},
			],
		});
	} else {
		d.w.addMessages(c === d.chats[0] && d.orphan ? d.orphan : c.current, [
			{role: 'user', content: user, timestamp: t},
			{role: 'assistant', content: reply, timestamp: replyAt},
		]);
	}

	setTimeout(() => step(d, speed), ((d.plan.messageEvery * 1000) / speed) * (0.5 + ((d.n * 37) % 10) / 10));
}

function main(): void {
	const home = arg('--home', '');
	if (!home) {
		process.stderr.write('gateway: --home DIR is required\n');
		process.exit(2);
	}

	const speed = Math.max(0.1, Number(arg('--speed', '1')) || 1);
	fs.mkdirSync(home, {recursive: true});
	const w = new StoreWriter(path.join(home, 'state.db'), {shape: 'v30', seed: Number(arg('--seed', '7'))});
	const chats: Chat[] = [
		{
			key: 'agent:main:telegram:dm:777001',
			platform: 'telegram',
			chatId: '777001',
			chatType: 'dm',
			userId: 'u-teknium',
			name: 'Teknium',
			current: '',
		},
		{
			key: 'agent:main:discord:group:9001',
			platform: 'discord',
			chatId: '9001',
			chatType: 'group',
			userId: 'u-bob',
			name: '#ops',
			current: '',
		},
		{
			key: 'agent:main:slack:dm:C01',
			platform: 'slack',
			chatId: 'C01',
			chatType: 'dm',
			userId: 'u-carol',
			name: 'Carol',
			current: '',
		},
	];
	seedHistory(w, clock(), chats);
	for (const c of chats) {
		w.setRouting(c.key, c.current, clock());
	}

	say({event: 'ready', db: path.join(home, 'state.db'), pid: process.pid});
	const started = Date.now();
	const restartArg = arg('--restart-at', '');
	const restartAt =
		restartArg === 'never'
			? null
			: restartArg && Number.isFinite(Number(restartArg))
				? Number(restartArg)
				: DEFAULT_PLAN.restartAt;
	const plan: GatewayPlan = {...DEFAULT_PLAN, restartAt};
	const demo: Demo = {
		w,
		chats,
		plan,
		at: seconds => started + (seconds * 1000) / speed,
		done: new Set(),
		orphan: null,
		restarted: false,
		n: 0,
	};
	const stop = () => {
		w.close();
		process.exit(0);
	};

	// SIGTERM, SIGINT and SIGHUP: a clean stop, through the one signal policy (ground/interrupts.ts).
	ownSignals(stop);
	step(demo, speed);
}

main();
