/**
 * The places beside a store in words (hermes-incidents §2): the lines `hfx files` and the Files
 * pane list (each file with its meaning), and the scan's section for the findings of the places
 * and the §4 signatures (forensics/places/elsewhere.ts), wrapped for 80 columns.
 */
import type {Analysis, Finding} from '../../forensics/analysis/analyze.js';
import {ELSEWHERE_ACTION_KINDS} from '../../forensics/places/elsewhere.js';
import {homeRelative, utcWords} from '../../forensics/places/place-findings.js';
import {type PlaceVerdicts, shapeWords} from '../../forensics/places/place-verdicts.js';
import {wrapIndented} from '../../text/wrap.js';

export type PlaceLine = {text: string; tone?: 'danger' | 'warn' | 'ok' | 'muted'};

const WIDTH = 78;

/** A file's name and its meaning: the name on its own line, the meaning wrapped under it. */
function entry(name: string, meaning: string, tone?: PlaceLine['tone']): PlaceLine[] {
	return [{text: `  ${name}`, tone}, ...wrapIndented(meaning, WIDTH - 4, 0).map(l => ({text: `    ${l}`, tone}))];
}

function plural(n: number, word: string): string {
	return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Beyond this many legacy transcripts, one line counts them (a pre-SQLite home holds one per session). */
const MAX_LEGACY_LINES = 5;

function divertedLines(v: PlaceVerdicts): PlaceLine[] {
	const legacy = v.diverted.filter(d => d.kind === 'legacy');
	const listed = legacy.length > MAX_LEGACY_LINES ? v.diverted.filter(d => d.kind !== 'legacy') : v.diverted;
	const counted =
		listed === v.diverted
			? []
			: entry(
					`sessions/ (${legacy.length} legacy transcripts)`,
					'rows already in the store; Hermes no longer reads them (hfx files --json lists each)',
					'muted',
				);
	return [
		...counted,
		...listed.flatMap(d => {
			const name = homeRelative(v.home, d.file.path);
			const damage =
				d.file.invalidLines > 0
					? `; ${plural(d.file.invalidLines, 'line')} not ` +
						`JSON${d.file.incompleteLast ? ' (the last one cut short)' : ''}`
					: '';
			const read = d.file.problem ? `; ${d.file.problem}` : '';
			if (d.kind === 'diverted') {
				return entry(
					name,
					`diverted transcript: ${plural(d.turns, 'turn')} not in state.db, ` +
						`newest ${utcWords(d.newestAt)} (${d.why}); Hermes never replays ` +
						`it${damage}${read}`,
					'danger',
				);
			}

			const lines = d.file.olderThanRow ? '' : `, ${plural(d.file.lines, 'line')}`;
			return entry(
				name,
				d.kind === 'legacy'
					? `legacy transcript${lines}: ${d.why}${damage}`
					: `transcript of unknown kind: ${d.why}${damage}${read}`,
				'muted',
			);
		}),
	];
}

const REPLAY_WORDS = {
	will: 'Hermes will replay it',
	'will-not': 'Hermes will NOT replay it',
	unknown: 'not read',
} as const;

function spoolLines(v: PlaceVerdicts): PlaceLine[] {
	return v.spool.flatMap(s => {
		const whose = s.file.sessionId === null ? 'no session id' : `session ${s.file.sessionId}`;
		const meaning =
			`${shapeWords(s.file)} ` +
			`(${s.file.reason || 'no reason'}; ${whose}${s.file.ts === null ? '' : `, ${utcWords(s.file.ts)}`}` +
			`): ${REPLAY_WORDS[s.replay]}: ${s.why}`;
		return entry(homeRelative(v.home, s.file.path), meaning, s.replay === 'will-not' ? 'danger' : 'warn');
	});
}

function captureLines(v: PlaceVerdicts): PlaceLine[] {
	return v.captures.flatMap(c => {
		const who =
			`${utcWords(c.at)}${c.pid === null ? '' : `, pid ${c.pid}`}` + `${c.capture.partial ? ', never completed' : ''}`;
		const turns = c.capture.imageProblem
			? `its image: ${c.capture.imageProblem}`
			: `${plural(c.turns, 'committed turn')} not in the live ` +
				`store${c.newestAt === null ? '' : `, newest ${utcWords(c.newestAt)}`} ` +
				`(read from a private copy)`;
		const manifest = c.capture.manifestProblem ? `; ${c.capture.manifestProblem}` : '';
		return entry(
			`${homeRelative(v.home, c.capture.path)}/`,
			`retired WAL of a write halt, captured ${who}: ${turns}${manifest}; Hermes never replays it`,
			c.turns > 0 ? 'danger' : 'warn',
		);
	});
}

const BEFORE_WORDS = {
	'emergency-snapshot': 'pre-update emergency snapshot',
	'quick-snapshot': 'quick snapshot',
	'backup-zip': 'backup zip',
	'replaced-store': 'a store Hermes set aside',
} as const;

function beforeLines(v: PlaceVerdicts): PlaceLine[] {
	return v.before.flatMap(b =>
		entry(
			homeRelative(v.home, b.path),
			`${BEFORE_WORDS[b.kind]}${b.at === null ? '' : ` of ${utcWords(b.at)}`}` +
				`${b.pid === null ? '' : ` (pid ${b.pid})`}: ` +
				`a "before" image, never replayed${b.problem ? `; ${b.problem}` : ''}`,
			'muted',
		),
	);
}

/** Every place beside the store with its meaning ([] when there is none). */
export function placeLines(v: PlaceVerdicts | null): PlaceLine[] {
	if (!v) {
		return [];
	}

	const lines = [
		...captureLines(v),
		...divertedLines(v),
		...spoolLines(v),
		...beforeLines(v),
		...v.notes.map(n => ({text: `  ${n}`, tone: 'warn' as const})),
	];
	return lines.length === 0
		? []
		: [
				{text: ''},
				...wrapIndented(`Other places the conversation can be (${v.home}):`, WIDTH, 2).map(text => ({text})),
				...lines,
			];
}

function findingLines(f: Finding): string[] {
	const mark = f.severity === 'critical' ? '✗' : f.severity === 'warning' ? '!' : '·';
	return [
		...wrapIndented(`${mark} ${f.title}`, WIDTH, 4),
		...wrapIndented(f.detail, WIDTH - 4, 0).map(l => `    ${l}`),
		...wrapIndented(`next: ${f.next}`, WIDTH - 4, 0).map(l => `    ${l}`),
		'',
	];
}

const SCAN_KINDS: ReadonlySet<Finding['kind']> = new Set([...ELSEWHERE_ACTION_KINDS, 'phantom-unknown-row']);

/** The scan's section: the places' and the signatures' findings, then each chat's newest message outside state.db. */
export function elsewhereScanLines(analysis: Pick<Analysis, 'findings' | 'newestElsewhere' | 'places'>): string[] {
	const lines = analysis.findings.filter(f => SCAN_KINDS.has(f.kind)).flatMap(findingLines);
	for (const c of analysis.newestElsewhere) {
		const file = homeRelative(analysis.places?.home ?? '', c.newestFile);
		const where = c.newerThanStore ? `the newest message is in ${file}` : `the newest outside state.db is in ${file}`;
		lines.push(
			...wrapIndented(
				`${c.sessionKey}: ${plural(c.turns, 'turn')} outside state.db ` +
					`in ${plural(c.files.length, 'file')}; ${where} (${utcWords(c.newestAt)})`,
				WIDTH,
				4,
			),
		);
	}

	return lines.length > 0 && analysis.newestElsewhere.length > 0 ? [...lines, ''] : lines;
}
