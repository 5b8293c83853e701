/**
 * The findings of the places beside the store (hermes-incidents §2, certainty words of §7): a
 * write halt happened (when, which process, how many turns were diverted), and turns Hermes will
 * not replay. Pure: the place verdicts and the per-chat newest-elsewhere in, findings out.
 */
import type {Finding} from '../finding.js';
import type {ChatElsewhere} from './newest-elsewhere.js';
import type {PlaceVerdicts} from './place-verdicts.js';
import {shapeWords} from './place-verdicts.js';

/** At most this many unreplayable spool files get a finding each; the rest are counted in one. */
const MAX_SPOOL_FINDINGS = 20;

/** An epoch instant in UTC words: 2026-09-12 10:04:05Z. */
export function utcWords(at: number | null): string {
	if (at === null || !Number.isFinite(at)) {
		return 'an unknown time';
	}

	return `${new Date(Math.floor(at) * 1000).toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** A file under the home, as the operator reads it there. */
export function homeRelative(home: string, file: string): string {
	return file.startsWith(`${home}/`) ? file.slice(home.length + 1) : file;
}

function plural(n: number, word: string): string {
	return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Each piece of halt evidence in words; the turns they hold; the earliest instant. */
function haltEvidence(v: PlaceVerdicts): {parts: string[]; turns: number; when: number | null; pids: number[]} {
	const parts: string[] = [];
	let turns = 0;
	const times: number[] = [];
	for (const c of v.captures) {
		const image = c.capture.imageProblem
			? `its image cannot be read (${c.capture.imageProblem})`
			: `${plural(c.turns, 'turn')} committed ` +
				`there ${c.turns === 1 ? 'is' : 'are'} not in the live ` +
				`store${c.newestAt === null ? '' : ` (newest ${utcWords(c.newestAt)})`}`;
		parts.push(
			`Hermes retired its WAL to ${c.capture.name} ` +
				`at ${utcWords(c.at)}` +
				(c.pid === null
					? ''
					: ` (pid ${c.pid}${c.capture.manifest?.trigger ? `, ${c.capture.manifest.trigger}` : ''})`) +
				`${c.capture.partial ? ', a capture that never completed' : ''}: ${image}`,
		);
		turns += c.turns;
		if (c.at !== null) {
			times.push(c.at);
		}
	}

	for (const d of v.diverted.filter(x => x.kind === 'diverted')) {
		parts.push(`${homeRelative(v.home, d.file.path)} holds ${plural(d.turns, 'diverted line')} (${d.why})`);
		turns += d.turns;
		if (d.firstAt !== null) {
			times.push(d.firstAt);
		}
	}

	const drops = v.spool.filter(s => s.file.shape === 'transcript_cap_drop');
	if (drops.length > 0) {
		parts.push(
			`${plural(drops.length, 'spool file')} in ` +
				`pending_messages/ ${drops.length === 1 ? 'holds a message' : 'hold messages'} ` +
				`the transcript queue dropped while writes were refused`,
		);
		turns += drops.reduce((n, s) => n + s.file.messages, 0);
		times.push(...drops.flatMap(s => (s.file.ts === null ? [] : [s.file.ts])));
	}

	const pids = [...new Set(v.captures.flatMap(c => (c.pid === null ? [] : [c.pid])))];
	return {parts, turns, when: times.reduce<number | null>((a, b) => (a === null || b < a ? b : a), null), pids};
}

export function writeHaltFinding(v: PlaceVerdicts, chats: readonly ChatElsewhere[]): Finding | null {
	const {parts, turns, when, pids} = haltEvidence(v);
	if (parts.length === 0) {
		return null;
	}

	const newest = chats
		.filter(c => c.newerThanStore)
		.map(
			c =>
				`the newest message of ${c.sessionKey} is ` +
				`in ${homeRelative(v.home, c.newestFile)} (${utcWords(c.newestAt)}), not ` +
				`in state.db`,
		);
	const who = pids.length > 0 ? ` by pid ${pids.join(', ')}` : '';
	return {
		severity: turns > 0 ? 'critical' : 'warning',
		kind: 'write-halt',
		subject:
			v.captures[0]?.capture.name ??
			homeRelative(v.home, v.diverted.find(d => d.kind === 'diverted')?.file.path ?? 'pending_messages'),
		title: `WRITE HALT at ${utcWords(when)}${who}: ${plural(turns, 'turn')} diverted out of state.db`,
		detail:
			`${[...parts, ...newest].join('; ')} (certain: these files exist; ` +
			`strong: their turns are missing from state.db)`,
		next:
			'do not delete these files nor restart the gateway to clean up: copy the ' +
			'home aside (cp -a) first; Hermes never replays a capture or a diverted ' +
			'transcript: inspect the capture with `hermes sessions recover ' +
			'--inspect-only` and import the turns by hand',
	};
}

export function unreplayedFindings(v: PlaceVerdicts): Finding[] {
	const refused = v.spool.filter(s => s.replay === 'will-not');
	const findings: Finding[] = refused.slice(0, MAX_SPOOL_FINDINGS).map(s => {
		const name = homeRelative(v.home, s.file.path);
		const whose = s.file.sessionId === null ? 'no session' : `session ${s.file.sessionId}`;
		return {
			severity: 'warning',
			kind: 'unreplayed-turns',
			subject: name,
			title: `turns Hermes will not replay: ${name}`,
			detail:
				`${shapeWords(s.file)} (${plural(s.file.messages, 'message')} ` +
				`of ${whose}${s.file.ts === null ? '' : `, ${utcWords(s.file.ts)}`}): ${s.why}`,
			next:
				'copy it aside (cp -a) before anything else; its turns come back only by ' +
				'hand (append role, content and time to the session), or keep it as the record',
		};
	});
	if (refused.length > MAX_SPOOL_FINDINGS) {
		findings.push({
			severity: 'warning',
			kind: 'unreplayed-turns',
			subject: 'pending_messages',
			title: `${refused.length - MAX_SPOOL_FINDINGS} more spool files Hermes will not replay`,
			detail: 'see hfx files for each',
			next: 'copy pending_messages/ aside (cp -a) before anything else',
		});
	}

	return findings;
}

export function placeFindings(v: PlaceVerdicts, chats: readonly ChatElsewhere[]): Finding[] {
	const halt = writeHaltFinding(v, chats);
	return [...(halt ? [halt] : []), ...unreplayedFindings(v)];
}
