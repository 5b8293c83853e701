/**
 * Start-up marks for diagnostics (`HFX_TRACE_STARTUP=FILE`): when each step ended, in ms since
 * the process started. Recording one is a push onto an array; nothing is written unless asked.
 */
const marks: Array<[string, number]> = [];

export function startupMark(step: string): void {
	marks.push([step, performance.now()]);
}

/** The marks so far, as one JSON object (step -> ms, rounded). */
export function startupMarks(): Record<string, number> {
	return Object.fromEntries(marks.map(([k, v]) => [k, Math.round(v)]));
}
