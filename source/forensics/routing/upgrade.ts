/**
 * What an upgrade changes: the store's own generation decides today; current Hermes decides once
 * it has migrated the store and restarted the gateway. Per orphan and per chat where the two
 * differ: "today X; after upgrading Hermes, Y". The same comparison says where two builds of one
 * generation differ ("with v30 X; with v30 before #91543, Y": build-rules.ts).
 */
import type {OrphanVerdict} from './orphans.js';
import type {ChatRouting} from './routing.js';

/** The parts of a generation's verdicts an upgrade can change (analyze.ts's GenerationVerdicts). */
type Verdicts = {
	listed: readonly OrphanVerdict[];
	repairRoutingCrash: {sessionId: string} | null;
	routing: readonly ChatRouting[];
};

export type UpgradeLine = {subject: string; text: string};

export type UpgradeChanges = {
	/** By orphan id and by session key. */
	bySubject: Map<string, string>;
	/** In order: orphans (by repair-routing's order), then chats (by key). */
	lines: UpgradeLine[];
};

function orphanWords(o: OrphanVerdict | undefined, crashed: boolean): string {
	if (o === undefined) {
		return crashed ? 'not reached (repair-routing fails first)' : 'not listed';
	}

	if (o.verdict === 'adoptable') {
		return `adoptable into ${o.sessionKey} from ${o.donorId} (${o.evidence})`;
	}

	return `refused (${o.reasonKind})`;
}

function sameOrphan(a: OrphanVerdict | undefined, b: OrphanVerdict | undefined): boolean {
	return (
		a?.verdict === b?.verdict &&
		a?.donorId === b?.donorId &&
		a?.reasonKind === b?.reasonKind &&
		a?.sessionKey === b?.sessionKey
	);
}

function chatWords(c: ChatRouting | undefined): string {
	if (c === undefined) {
		return 'not a chat';
	}

	const resumes =
		c.restartResolvesTo === null ? 'a restart starts a fresh session' : `a restart resumes ${c.restartResolvesTo}`;
	return `${resumes}${c.rollbackRisk ? ` (ROLLBACK RISK: newest in ${c.newestActivityIn})` : ', no risk'}`;
}

/** How the two sides are said: "today" and "after upgrading Hermes", or two builds' rules. */
export type SideWords = {today: string; after: string};

const UPGRADE_WORDS: SideWords = {today: 'today', after: 'after upgrading Hermes'};

function orphanChanges(today: Verdicts, after: Verdicts, lines: UpgradeLine[], words: SideWords): void {
	const before = new Map(today.listed.map(o => [o.orphanId, o]));
	const now = new Map(after.listed.map(o => [o.orphanId, o]));
	const ids = [...new Set([...before.keys(), ...now.keys()])];
	for (const id of ids) {
		const a = before.get(id);
		const b = now.get(id);
		if (!sameOrphan(a, b)) {
			lines.push({
				subject: id,
				text:
					`${words.today} ${orphanWords(a, today.repairRoutingCrash !== null)}; ` +
					`${words.after}, ${orphanWords(b, after.repairRoutingCrash !== null)}`,
			});
		}
	}
}

function chatChanges(today: Verdicts, after: Verdicts, lines: UpgradeLine[], words: SideWords): void {
	const before = new Map(today.routing.map(c => [c.sessionKey, c]));
	const now = new Map(after.routing.map(c => [c.sessionKey, c]));
	const keys = [...new Set([...before.keys(), ...now.keys()])].sort();
	for (const key of keys) {
		const a = before.get(key);
		const b = now.get(key);
		if (a?.restartResolvesTo !== b?.restartResolvesTo || a?.rollbackRisk !== b?.rollbackRisk) {
			lines.push({subject: key, text: `${words.today} ${chatWords(a)}; ${words.after}, ${chatWords(b)}`});
		}
	}
}

export function upgradeChanges(
	today: Verdicts,
	after: Verdicts | null,
	words: SideWords = UPGRADE_WORDS,
): UpgradeChanges {
	const lines: UpgradeLine[] = [];
	if (after !== null) {
		orphanChanges(today, after, lines, words);
		chatChanges(today, after, lines, words);
	}

	return {bySubject: new Map(lines.map(l => [l.subject, l.text])), lines};
}
