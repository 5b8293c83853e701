/**
 * The gateway log lines that place restarts and rotations in time (hermes-incidents.md §6.2),
 * parsed from Hermes' line format `%(asctime)s %(levelname)s[ [session_id]] %(name)s: %(message)s`
 * (§6.1). `asctime` is the gateway host's local time, `YYYY-MM-DD HH:MM:SS,mmm`: the caller turns
 * its parts into an epoch with the UTC offset it assumes, and says which. Pure.
 */

export type LogKind =
	| 'gateway-start'
	| 'gateway-up'
	| 'previous-exit-clean'
	| 'previous-exit-unclean'
	| 'gateway-stop'
	| 'repoint'
	| 'prune'
	| 'stale-entry-dropped'
	| 'end-predecessor-failed'
	| 'create-row-failed'
	| 'routing-save-failed'
	| 'transcript-lagged';

/** Local wall-clock parts of an asctime (month 1-12). */
export type LocalTime = {
	year: number;
	month: number;
	day: number;
	hour: number;
	minute: number;
	second: number;
	ms: number;
};

export type LogLine = {
	kind: LogKind;
	local: LocalTime;
	/** The asctime as written (local time). */
	asctime: string;
	level: string;
	logger: string;
	/** The session key the line names, if any. */
	sessionKey: string | null;
	/** Session ids the line names (its session tag included). */
	ids: string[];
	message: string;
};

/** Lines about the whole gateway (they concern every chat); the others name a key or a row. */
export const GATEWAY_WIDE: ReadonlySet<LogKind> = new Set([
	'gateway-start',
	'gateway-up',
	'previous-exit-clean',
	'previous-exit-unclean',
	'gateway-stop',
	'routing-save-failed',
]);

/** A quoted Python repr of a str: '…' or "…". */
const REPR = `(?:'([^']*)'|"([^"]*)")`;

type Matcher = {kind: LogKind; re: RegExp; key?: number; ids?: number[]};

/** Message texts of §6.2 (Aug-20 tree); group numbers name the key and the ids. Keys are reprs: two groups each. */
const MATCHERS: readonly Matcher[] = [
	{kind: 'gateway-start', re: /Starting Hermes Gateway/},
	{kind: 'gateway-up', re: /Gateway running with \d+ platform/},
	{kind: 'previous-exit-clean', re: /Previous gateway exited cleanly/},
	{kind: 'previous-exit-unclean', re: /Marked \d+ in-flight session\(s\) as resumable/},
	{kind: 'gateway-stop', re: /Gateway stopped \(|Gateway exiting (?:cleanly|with failure)/},
	{
		kind: 'repoint',
		re: new RegExp(
			String.raw`repointing stale sessions\.json entry ${REPR} from ended (\S+) \(end_reason=.*?\) to recovered (\S+)`,
		),
		key: 1,
		ids: [3, 4],
	},
	{kind: 'prune', re: new RegExp(String.raw`pruning stale sessions\.json entry ${REPR} -> (\S+)`), key: 1, ids: [3]},
	{
		kind: 'stale-entry-dropped',
		re: new RegExp(String.raw`routing key ${REPR} -> (\S+) is ended in state\.db`),
		key: 1,
		ids: [3],
	},
	{kind: 'end-predecessor-failed', re: /Failed to end predecessor session row (\S+) for (\S+?): /, ids: [1]},
	{kind: 'create-row-failed', re: /Failed to create session row (\S+) for (\S+?): /, ids: [1]},
	{kind: 'routing-save-failed', re: /routing save failed|mirror save failed after state\.db commit/},
	{kind: 'transcript-lagged', re: /Persisted transcript lagged live cached history for session (\S+) \(/},
];

/** Cheap pre-filter: a line none of these words is in is not read further. */
export const LOG_WORDS: readonly string[] = [
	'Gateway',
	'gateway exited',
	'in-flight',
	'sessions.json entry',
	'routing key',
	'session row',
	'save failed',
	'transcript lagged',
];

const LINE = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}),(\d{3}) ([A-Z]+)(?: \[([^\]\s]*)\])? ([\w.-]+): (.*)$/;

/** The key a matcher's "for %s" names (the failed-rotation lines name the key after the row id). */
function keyOf(m: Matcher, g: RegExpExecArray): string | null {
	if (m.key !== undefined) {
		return g[m.key] ?? g[m.key + 1] ?? null;
	}

	if (m.kind === 'end-predecessor-failed' || m.kind === 'create-row-failed') {
		return g[2] ?? null;
	}

	return m.kind === 'transcript-lagged' ? (g[1] ?? null) : null;
}

/** One line, or null when it is not one of §6.2's. */
export function parseLogLine(text: string): LogLine | null {
	if (!LOG_WORDS.some(w => text.includes(w))) {
		return null;
	}

	const p = LINE.exec(text);
	if (!p) {
		return null;
	}

	const message = p[11]!;
	for (const m of MATCHERS) {
		const g = m.re.exec(message);
		if (g) {
			const [year, month, day, hour, minute, second, ms] = p.slice(1, 8).map(Number) as [
				number,
				number,
				number,
				number,
				number,
				number,
				number,
			];
			const ids = (m.ids ?? []).map(i => g[i]).filter((v): v is string => v !== undefined);
			return {
				kind: m.kind,
				local: {year, month, day, hour, minute, second, ms},
				asctime: text.slice(0, 23),
				level: p[8]!,
				logger: p[10]!,
				sessionKey: keyOf(m, g),
				ids: p[9] ? [p[9], ...ids] : ids,
				message,
			};
		}
	}

	return null;
}
