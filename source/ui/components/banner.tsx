/**
 * The loud line under the tabs: the store's error, or the chats at rollback risk. Nothing when
 * all is well.
 */
import React from 'react';
import {Text} from './text.js';
import type {LiveModel} from '../../store/live.js';
import {plural} from '../../text/format.js';
import {useTheme} from '../theme.js';

/** How many rows the banner takes for this model. */
export function bannerRows(model: LiveModel): number {
	return model.error || model.analysis.routing.some(r => r.rollbackRisk) ? 1 : 0;
}

export function Banner({model, width}: {model: LiveModel; width: number}): React.ReactElement | null {
	const theme = useTheme();
	const risky = model.analysis.routing.filter(r => r.rollbackRisk);
	if (model.error) {
		return <Text wrap="truncate" color={theme.warn} bold>{` ! ${model.error}`.slice(0, width)}</Text>;
	}

	if (risky.length === 0) {
		return null;
	}

	const first = risky[0]!;
	return (
		<Text wrap="truncate" color={theme.danger} bold inverse={theme.color}>
			{` ✗ ROLLBACK RISK ${plural(risky.length, 'chat')}: ${first.sessionKey} would resume ${first.restartResolvesTo}, newest message is in ${first.newestActivityIn} · 4 Routing `.slice(0, width)}
		</Text>
	);
}
