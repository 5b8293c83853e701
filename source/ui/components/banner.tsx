/**
 * The loud lines under the tabs: the store's error; or a rollback that already happened (the
 * operator's own complaint, first) and the chats at rollback risk, a line each, counted, the
 * worst named (the most messages stranded or a restart would skip). Nothing when
 * all is well. A rollback that happened is no risk: its line names what was skipped and where it
 * is, never "do not restart" (the restart is done). On a narrow terminal the line says less rather than cut an id: the
 * hint goes,
 * then the wording shortens, then the session key (its platform and chat tail kept), then the
 * newest session; a session id is shown whole or not at all.
 */
import type React from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import type {LiveModel} from '../../live/live.js';
import type {ChatRouting} from '../../forensics/routing/routing.js';
import type {Rollback} from '../../forensics/rollbacks/rollbacks.js';
import {duration} from '../../forensics/duration.js';
import {suffixOf} from '../../forensics/resolve.js';
import {plural} from '../../text/format.js';
import {cutKeepingIds, shortKey} from '../../text/fit.js';
import {useTheme} from '../theme.js';
import type {HomeView} from '../sources/home-model.js';
import type {SessionRecord} from '../../forensics/types.js';

/**
 * The banner while the first analysis runs (LiveModel.analysing): no risk is known yet, and it says so, rather than the
 * silence that means "all is well".
 */
export function analysingLine(total: number, width: number): string {
	const full = ` … analysing ${plural(total, 'session')}: rollback risks and findings follow (keys work meanwhile)`;
	return full.length <= width ? full : ` … analysing: risks not known yet`.slice(0, width);
}

/**
 * The predicate of the routing rows at rollback risk, made once: a callback made per render lost its optimised code at
 * each mark-compact (every ~4 s while following 200 commits/s) and TurboFan compiled it again (issue #26).
 */
const atRisk = (r: ChatRouting): boolean => r.rollbackRisk;

/** How many rows the banner takes for this model (on a root with profiles, for every profile). */
export function bannerRows(model: LiveModel, home?: HomeView | null): number {
	if (model.error || model.analysing) {
		return 1;
	}

	if (home) {
		const {rolledBack, risky} = homeBanner(home);
		return (rolledBack ? 1 : 0) + (risky ? 1 : 0);
	}

	return (model.analysis.rollbacks.length > 0 ? 1 : 0) + (model.analysis.routing.some(atRisk) ? 1 : 0);
}

type Worst<T> = {profile: string; all: T[]; first: T; messages: number} | null;

/**
 * Across profiles: the items of every profile, the worst profile's (the most of them) first, and that profile's name.
 */
function worstOf<T>(
	home: HomeView,
	itemsOf: (model: LiveModel) => T[],
	messagesOf: (item: T, model: LiveModel) => number = () => 0,
): Worst<T> {
	const each = home.profiles
		.map(p => ({profile: p.name, model: p.model, items: itemsOf(p.model)}))
		.filter(p => p.items.length > 0);
	const worst = [...each].sort((a, b) => b.items.length - a.items.length)[0];
	if (!worst) {
		return null;
	}

	const all = [...worst.items, ...each.filter(p => p !== worst).flatMap(p => p.items)];
	return {profile: worst.profile, all, first: all[0]!, messages: messagesOf(all[0]!, worst.model)};
}

/**
 * The banner across profiles: the rollbacks that happened and the chats at risk, counted over every profile, the worst
 * profile named.
 */
export function homeBanner(home: HomeView): {rolledBack: Worst<Rollback>; risky: Worst<ChatRouting>} {
	return {
		rolledBack: worstOf(home, m => (m.error ? [] : worstRolledBack(m.analysis.rollbacks))),
		risky: worstOf(
			home,
			m => (m.error ? [] : worstFirst(m.analysis.routing.filter(atRisk), m.analysis.byId)),
			(chat, m) => messagesAtRisk(chat, m.analysis.byId),
		),
	};
}

/**
 * The banner's lines across profiles, each naming the worst profile ("[work] ✗ ROLLBACK RISK …"), in `width` columns.
 */
export function homeBannerLines(home: HomeView, width: number): {rolledBack: string | null; risky: string | null} {
	const {rolledBack, risky} = homeBanner(home);
	const tag = (profile: string) => ` [${profile}]`;
	return {
		rolledBack: rolledBack
			? `${tag(rolledBack.profile)}${rolledBackLine(rolledBack.all, width - tag(rolledBack.profile).length)}`
			: null,
		risky: risky
			? `${tag(risky.profile)}` +
				`${riskLine(risky.all.length, risky.first, width - tag(risky.profile).length, risky.messages)}`
			: null,
	};
}

/**
 * Versions of the rolled-back line, most said first; each takes the key as it fits. Ids by their suffix, as `hfx repair
 * --only` takes them.
 */
function rolledBackVariants(chats: number, first: Rollback): Array<(key: string) => string> {
	const head = ` ✗ ROLLED BACK ${chats > 1 ? `${chats} chats: ` : ''}`;
	const back = duration(first.resumedAt - first.jumpedFrom);
	const skipped = `${first.skipped.messages} messages stranded in ${suffixOf(first.skipped.id)}`;
	return [
		key =>
			`${head}${key}: a restart resumed ${suffixOf(first.resumedId)}, a context ${back} old; ${skipped} · 5 Findings `,
		key => `${head}${key}: a restart resumed ${suffixOf(first.resumedId)}, a context ${back} old; ${skipped}`,
		key => `${head}${key} ${back}; ${skipped}`,
		key => `${head}${key} ${back}; ${first.skipped.messages} msgs in ${suffixOf(first.skipped.id)}`,
		key => `${head}${key} ${back} · 5 Findings`,
		key => `${head}${key} ${back}`,
		key => `${head}${key}`,
	];
}

/** The rolled-back line in `width` columns, ids whole; it rather says less than cut the chat id. */
export function rolledBackLine(rollbacks: readonly Rollback[], width: number): string {
	const first = rollbacks[0]!;
	const all = rolledBackVariants(new Set(rollbacks.map(r => r.sessionKey)).size, first);
	const whole = all.slice(0, 2).find(make => make(first.sessionKey).length <= width);
	if (whole) {
		return whole(first.sessionKey);
	}

	const chatId = `:${first.sessionKey.split(':').slice(4).join(':')}`;
	for (const make of all) {
		const key = shortKey(first.sessionKey, width - make('').length);
		if (key?.endsWith(chatId)) {
			return make(key);
		}
	}

	return fitted(all, first.sessionKey, width, 2);
}

/** The messages a restart now would skip in a chat at risk: those of the row holding its newest message. */
export function messagesAtRisk(chat: ChatRouting, byId: ReadonlyMap<string, SessionRecord>): number {
	const newest = chat.newestActivityIn === null ? undefined : byId.get(chat.newestActivityIn);
	return newest ? (newest.messageRows ?? newest.messageCountColumn) : 0;
}

/** The chats at risk, the worst first: the most messages a restart would skip (issue #28 point 6). */
export function worstFirst(risky: readonly ChatRouting[], byId: ReadonlyMap<string, SessionRecord>): ChatRouting[] {
	return [...risky].sort((a, b) => messagesAtRisk(b, byId) - messagesAtRisk(a, byId));
}

/** The rollbacks that happened, the worst first: the most messages stranded. */
export function worstRolledBack(rollbacks: readonly Rollback[]): Rollback[] {
	return [...rollbacks].sort((a, b) => b.skipped.messages - a.skipped.messages);
}

/** Versions of the risk line, most said first; each takes the key (of the worst chat) as it fits. */
function variants(chats: number, first: ChatRouting, messages: number): Array<(key: string) => string> {
	const n = chats > 1 ? `${chats} chats, worst` : '1 chat:';
	const resumes =
		first.restartResolvesTo === null ? 'a restart starts a fresh session' : `would resume ${first.restartResolvesTo}`;
	const short = first.restartResolvesTo === null ? 'starts afresh' : `resumes ${suffixOf(first.restartResolvesTo)}`;
	const newest = first.newestActivityIn ?? '?';
	const skips = messages > 0 ? `${plural(messages, 'message')} in ${newest}` : `the newest message, in ${newest}`;
	const few = messages > 0 ? `${messages} msgs` : 'newest';
	const long = first.restartResolvesTo === null ? 'starts afresh' : `resumes ${first.restartResolvesTo}`;
	return [
		key => ` ✗ ROLLBACK RISK ${n} ${key}: ${resumes}, skipping ${skips} · 4 Routing `,
		key => ` ✗ ROLLBACK RISK ${n} ${key}: ${resumes}, skipping ${skips}`,
		key => ` ✗ ROLLBACK RISK ${n} ${key}: ${long}, skips ${few} in ${newest}`,
		key => ` ✗ ROLLBACK RISK ${n} ${key}: skips ${few} in ${newest}`,
		key => ` ✗ ROLLBACK RISK ${n} ${key}: ${short}, skips ${few} in ${suffixOf(newest)}`,
		key => ` ✗ ROLLBACK RISK ${n} ${key}: skips ${few} in ${suffixOf(newest)}`,
		key => ` ✗ ROLLBACK RISK ${n} ${key}: skips ${few}`,
		key => ` ✗ ROLLBACK RISK ${n} ${key}`,
	];
}

/** The risk line in `width` columns, ids whole: how many chats, the worst named with what a restart would skip. */
export function riskLine(chats: number, first: ChatRouting, width: number, messages = 0): string {
	return fitted(variants(chats, first, messages), first.sessionKey, width, 2);
}

/**
 * The first version that fits: the whole key in the first `whole` versions; then any with the key shortened; else cut.
 */
function fitted(all: Array<(key: string) => string>, sessionKey: string, width: number, whole: number): string {
	const withKey = all.slice(0, whole).find(make => make(sessionKey).length <= width);
	if (withKey) {
		return withKey(sessionKey);
	}

	// The key whole or without its agent part (…telegram:dm:777001) first, the most said that fits; then any shortened
	// key.
	const kept = [sessionKey, `…${sessionKey.split(':').slice(2).join(':')}`];
	for (const make of all) {
		const key = kept.find(k => make(k).length <= width);
		if (key) {
			return make(key);
		}
	}

	for (const make of all) {
		const key = shortKey(sessionKey, width - make('').length);
		if (key !== null) {
			return make(key);
		}
	}

	return cutKeepingIds(all.at(-1)!(sessionKey), width);
}

export function Banner({
	model,
	width,
	home,
}: {
	model: LiveModel;
	width: number;
	home?: HomeView | null;
}): React.ReactElement | null {
	const theme = useTheme();
	const risky = worstFirst(model.analysis.routing.filter(atRisk), model.analysis.byId);
	const rollbacks = worstRolledBack(model.analysis.rollbacks);
	if (model.error) {
		return (
			<Text wrap="truncate" color={theme.warn} bold>
				{cutKeepingIds(` ! ${home ? `[${home.focused}] ` : ''}${model.error}`, width)}
			</Text>
		);
	}

	if (model.analysing) {
		return (
			<Text wrap="truncate" color={theme.warn}>
				{analysingLine(model.analysing.total, width)}
			</Text>
		);
	}

	const lines = home
		? homeBannerLines(home, width)
		: {
				rolledBack: rollbacks.length > 0 ? rolledBackLine(rollbacks, width) : null,
				risky:
					risky.length > 0
						? riskLine(risky.length, risky[0]!, width, messagesAtRisk(risky[0]!, model.analysis.byId))
						: null,
			};
	if (lines.rolledBack === null && lines.risky === null) {
		return null;
	}

	return (
		<Box flexDirection="column">
			{lines.rolledBack === null ? null : (
				<Text wrap="truncate" color={theme.danger} bold inverse={theme.color}>
					{lines.rolledBack}
				</Text>
			)}
			{lines.risky === null ? null : (
				<Text wrap="truncate" color={theme.danger} bold inverse={theme.color}>
					{lines.risky}
				</Text>
			)}
		</Box>
	);
}
