/**
 * UTC stamps in names: written as Hermes writes them, and read back to epoch seconds.
 */

/** UTC "YYYYmmdd-HHMMSS", the stamp Hermes uses for snapshots. */
export function utcStamp(date = new Date()): string {
	return date.toISOString().replaceAll(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** Parses a stamp written by utcStamp back to epoch seconds (null when the name carries none). */
export function parseStamp(text: string): number | null {
	const m = /(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(text);
	if (!m) {
		return null;
	}

	const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
	return Number.isFinite(t) ? t / 1000 : null;
}
