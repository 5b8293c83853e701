/**
 * Lengths of time in words. Here, on the ground floor of the forensic engine, so the findings it
 * words and every command and pane that prints a gap share one voice.
 */

/**
 * A length of time in words, the one voice of every sentence hfx prints ("64 seconds newer",
 * "2.7 days old"): seconds under 90, minutes under 90, hours under 48, then days. Tables and the
 * TUI's narrow cells use text/format's span().
 */
export function duration(seconds: number | null | undefined): string {
	if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) {
		return '—';
	}

	const s = Math.abs(seconds);
	const unit = (n: number, word: string): string => `${n} ${n === 1 ? word : `${word}s`}`;
	if (s < 90) {
		return unit(Math.round(s), 'second');
	}

	if (s < 5400) {
		return unit(Math.round(s / 60), 'minute');
	}

	return s < 172_800 ? `${(s / 3600).toFixed(1)} hours` : `${(s / 86_400).toFixed(1)} days`;
}
