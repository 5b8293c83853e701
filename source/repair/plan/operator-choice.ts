/**
 * The operator's own adoption of an orphan repair-routing refuses (`hfx repair --only ORPHAN
 * --donor DONOR`): the manual procedure of Hermes' tracking issue for the incident, checked as far
 * as the store can tell before anything is planned. The donor must be keyed, of the orphan's
 * source, chat, user and profile, not the orphan itself and not already a repair's donor; an
 * orphan repair-routing adopts anyway is left to repair-routing. Pure.
 */
import type {Analysis} from '../../forensics/analysis/analyze.js';
import {REPAIR_END_REASON} from '../../forensics/end-reasons.js';
import type {OrphanVerdict} from '../../forensics/routing/orphans.js';
import {resolutionProblem, resolveSessionId} from '../../forensics/resolve.js';
import type {SessionRecord} from '../../forensics/types.js';

export type DonorChoice = {ok: true; verdict: OrphanVerdict; manual: boolean} | {ok: false; reason: string};

function refusal(reason: string): DonorChoice {
	return {ok: false, reason};
}

/** The orphan --only names, among the rows repair-routing lists; or why it names none. */
function orphanOf(analysis: Pick<Analysis, 'orphans' | 'listedRefusedLocal'>, name: string): OrphanVerdict | string {
	const r = resolveSessionId(
		analysis.orphans.map(o => o.orphanId),
		name,
	);
	if (r.ok) {
		return analysis.orphans.find(o => o.orphanId === r.id)!;
	}

	const local = resolveSessionId(
		analysis.listedRefusedLocal.map(o => o.orphanId),
		name,
	);
	if (local.ok) {
		const o = analysis.listedRefusedLocal.find(x => x.orphanId === local.id)!;
		return `${o.orphanId} is a ${o.source} row: keyless by design, it has no gateway chat to adopt`;
	}

	return `--only ${resolutionProblem(r, 'orphan')}`;
}

/** Why this donor cannot give its identity to this orphan, or null. */
function donorProblem(o: OrphanVerdict, orphan: SessionRecord | undefined, donor: SessionRecord): string | null {
	if (donor.id === o.orphanId) {
		return `the donor ${donor.id} is the orphan itself`;
	}

	if (!donor.sessionKey) {
		return `the donor ${donor.id} is not keyed (its session_key is NULL): it has no routing identity to give`;
	}

	if (donor.source !== o.source) {
		return (
			`the donor ${donor.id} is a ${donor.source || 'sourceless'} row and the ` +
			`orphan a ${o.source || 'sourceless'} one: another source`
		);
	}

	if (orphan?.chatId && donor.chatId && orphan.chatId !== donor.chatId) {
		return `the donor ${donor.id} is of chat ${donor.chatId}, the orphan of chat ${orphan.chatId}: another chat`;
	}

	if (orphan?.userId && donor.userId && orphan.userId !== donor.userId) {
		return `the donor ${donor.id} is of user ${donor.userId}, the orphan of user ${orphan.userId}: another chat`;
	}

	if (donor.profileName && o.profileOwner && donor.profileName !== o.profileOwner) {
		return `the donor ${donor.id} belongs to profile ${donor.profileName}, the orphan to ${o.profileOwner}`;
	}

	if (donor.endReason === REPAIR_END_REASON) {
		return `the donor ${donor.id} already gave its identity in an earlier repair (ended ${REPAIR_END_REASON})`;
	}

	return null;
}

/** The orphan to adopt from the operator's donor, or the one-line reason it is refused. */
export function chooseDonor(
	analysis: Pick<Analysis, 'orphans' | 'listedRefusedLocal' | 'byId'>,
	only: readonly string[],
	donorName: string,
): DonorChoice {
	if (only.length !== 1) {
		return refusal(
			`--donor needs exactly one --only ORPHAN (the orphan it ` +
				`adopts); ${only.length === 0 ? 'none was given' : `${only.length} were given`}`,
		);
	}

	const o = orphanOf(analysis, only[0]!);
	if (typeof o === 'string') {
		return refusal(o);
	}

	const d = resolveSessionId(analysis.byId.keys(), donorName);
	if (!d.ok) {
		return refusal(`--donor ${resolutionProblem(d)}`);
	}

	const donor = analysis.byId.get(d.id)!;
	const problem = donorProblem(o, analysis.byId.get(o.orphanId), donor);
	if (problem) {
		return refusal(problem);
	}

	if (o.verdict === 'adoptable') {
		return o.donorId === donor.id
			? {ok: true, verdict: o, manual: false}
			: refusal(
					`repair-routing adopts ${o.orphanId} anyway, from ${o.donorId} ` +
						`(evidence ${o.evidence}), not from ${donor.id}: drop --donor to take ` +
						`that adoption`,
				);
	}

	return {
		ok: true,
		manual: true,
		verdict: {...o, verdict: 'adoptable', donorId: donor.id, sessionKey: donor.sessionKey},
	};
}
