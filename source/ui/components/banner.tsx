/**
 * The loud lines under the tabs: the store's error; or a rollback that already happened (the
 * operator's own complaint, first) and the chats at rollback risk, a line each. Nothing when
 * all is well. A rollback that happened is no risk: its line names what was skipped and where it
 * is, never "do not restart" (the restart is done). On a narrow terminal the line says less rather than cut an id: the hint goes,
 * then the wording shortens, then the session key (its platform and chat tail kept), then the
 * newest session; a session id is shown whole or not at all.
 */
import React from 'react';
import {Box} from 'ink';
import {Text} from './text.js';
import type {LiveModel} from '../../store/live.js';
import type {ChatRouting} from '../../forensics/routing.js';
import type {Rollback} from '../../forensics/rollbacks.js';
import {duration} from '../../forensics/duration.js';
import {suffixOf} from '../../forensics/resolve.js';
import {plural} from '../../text/format.js';
import {cutKeepingIds, shortKey} from '../../text/fit.js';
import {useTheme} from '../theme.js';

/** How many rows the banner takes for this model. */
export function bannerRows(model: LiveModel): number {
	if (model.error) {
		return 1;
	}

	return (model.analysis.rollbacks.length > 0 ? 1 : 0) + (model.analysis.routing.some(r => r.rollbackRisk) ? 1 : 0);
}

/** Versions of the rolled-back line, most said first; each takes the key as it fits. Ids by their suffix, as `hfx repair --only` takes them. */
function rolledBackVariants(chats: number, first: Rollback): Array<(key: string) => string> {
	const head = ` ✗ ROLLED BACK ${chats > 1 ? `${chats} chats: ` : ''}`;
	const back = duration(first.resumedAt - first.jumpedFrom);
	const skipped = `${first.skipped.messages} messages stranded in ${suffixOf(first.skipped.id)}`;
	return [
		key => `${head}${key}: a restart resumed ${suffixOf(first.resumedId)}, a context ${back} old; ${skipped} · 5 Findings `,
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

/** Versions of the risk line, most said first; each takes the key as it fits. */
function variants(chats: number, first: ChatRouting): Array<(key: string) => string> {
	const n = plural(chats, 'chat');
	const resumes = first.restartResolvesTo === null ? 'a restart starts a fresh session' : `would resume ${first.restartResolvesTo}`;
	const short = first.restartResolvesTo === null ? 'starts afresh' : `resumes ${first.restartResolvesTo}`;
	const newest = first.newestActivityIn;
	return [
		key => ` ✗ ROLLBACK RISK ${n}: ${key} ${resumes}, newest message is in ${newest} · 4 Routing `,
		key => ` ✗ ROLLBACK RISK ${n}: ${key} ${resumes}, newest message is in ${newest}`,
		key => ` ✗ ROLLBACK RISK ${n}: ${key} ${short}, newest in ${newest}`,
		key => ` ✗ ROLLBACK RISK ${n}: ${key} ${short} · 4 Routing`,
		key => ` ✗ ROLLBACK RISK ${n}: ${key} ${short}`,
		key => ` ✗ ROLLBACK RISK ${n}: ${key} · 4 Routing`,
	];
}

/** The risk line in `width` columns, ids whole. */
export function riskLine(chats: number, first: ChatRouting, width: number): string {
	return fitted(variants(chats, first), first.sessionKey, width, 2);
}

/** The first version that fits: the whole key in the first `whole` versions; then any with the key shortened; else cut. */
function fitted(all: Array<(key: string) => string>, sessionKey: string, width: number, whole: number): string {
	const withKey = all.slice(0, whole).find(make => make(sessionKey).length <= width);
	if (withKey) {
		return withKey(sessionKey);
	}

	for (const make of all) {
		const room = width - make('').length;
		const key = shortKey(sessionKey, room);
		if (key !== null) {
			return make(key);
		}
	}

	return cutKeepingIds(all.at(-1)!(sessionKey), width);
}

export function Banner({model, width}: {model: LiveModel; width: number}): React.ReactElement | null {
	const theme = useTheme();
	const risky = model.analysis.routing.filter(r => r.rollbackRisk);
	const {rollbacks} = model.analysis;
	if (model.error) {
		return <Text wrap="truncate" color={theme.warn} bold>{cutKeepingIds(` ! ${model.error}`, width)}</Text>;
	}

	if (risky.length === 0 && rollbacks.length === 0) {
		return null;
	}

	return (
		<Box flexDirection="column">
			{rollbacks.length > 0 ? <Text wrap="truncate" color={theme.danger} bold inverse={theme.color}>{rolledBackLine(rollbacks, width)}</Text> : null}
			{risky.length > 0 ? <Text wrap="truncate" color={theme.danger} bold inverse={theme.color}>{riskLine(risky.length, risky[0]!, width)}</Text> : null}
		</Box>
	);
}
