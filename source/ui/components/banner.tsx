/**
 * The loud line under the tabs: the store's error, or the chats at rollback risk. Nothing when
 * all is well. On a narrow terminal the line says less rather than cut an id: the hint goes,
 * then the wording shortens, then the session key (its platform and chat tail kept), then the
 * newest session; a session id is shown whole or not at all.
 */
import React from 'react';
import {Text} from './text.js';
import type {LiveModel} from '../../store/live.js';
import type {ChatRouting} from '../../forensics/routing.js';
import {plural} from '../../text/format.js';
import {cutKeepingIds, shortKey} from '../../text/fit.js';
import {useTheme} from '../theme.js';

/** How many rows the banner takes for this model. */
export function bannerRows(model: LiveModel): number {
	return model.error || model.analysis.routing.some(r => r.rollbackRisk) ? 1 : 0;
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
	const all = variants(chats, first);
	// The whole key with all the ids first; then any version with the key shortened.
	const whole = all.slice(0, 2).find(make => make(first.sessionKey).length <= width);
	if (whole) {
		return whole(first.sessionKey);
	}

	for (const make of all) {
		const room = width - make('').length;
		const key = shortKey(first.sessionKey, room);
		if (key !== null) {
			return make(key);
		}
	}

	return cutKeepingIds(all.at(-1)!(first.sessionKey), width);
}

export function Banner({model, width}: {model: LiveModel; width: number}): React.ReactElement | null {
	const theme = useTheme();
	const risky = model.analysis.routing.filter(r => r.rollbackRisk);
	if (model.error) {
		return <Text wrap="truncate" color={theme.warn} bold>{cutKeepingIds(` ! ${model.error}`, width)}</Text>;
	}

	if (risky.length === 0) {
		return null;
	}

	return (
		<Text wrap="truncate" color={theme.danger} bold inverse={theme.color}>
			{riskLine(risky.length, risky[0]!, width)}
		</Text>
	);
}
