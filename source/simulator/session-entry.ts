/**
 * The gateway's `SessionEntry` and `SessionSource` as it serializes them (Aug-20 tree,
 * `gateway/session.py::SessionEntry.to_dict`, `SessionSource.to_dict`), with Python's
 * `json.dumps` spelling and its naive local-time `datetime.isoformat()`: what the simulator writes
 * into `gateway_routing.entry_json` and `sessions.origin_json` so those cells look like Hermes'.
 */

/** `SessionSource.to_dict()`: the inbound chat a gateway turn came from. */
export type SessionSourceDict = {
	platform: string;
	chat_id: string | null;
	chat_name: string | null;
	chat_type: string | null;
	user_id: string | null;
	user_name: string | null;
	thread_id: string | null;
	chat_topic: string | null;
};

function pad(n: number, width = 2): string {
	return String(n).padStart(width, '0');
}

/** `datetime.fromtimestamp(epoch).isoformat()`: naive local time, microseconds only when non-zero. */
export function localIso(epoch: number): string {
	const micros = Math.round(epoch * 1e6);
	const d = new Date(Math.floor(micros / 1000));
	const fraction = ((micros % 1e6) + 1e6) % 1e6;
	const base =
		`${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:` +
		`${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
	return fraction === 0 ? base : `${base}.${pad(fraction, 6)}`;
}

/** A gateway session id as the router mints it: `now.strftime('%Y%m%d_%H%M%S')` (local) + 8 hex. */
export function gatewaySessionId(epoch: number, hex8: string): string {
	const d = new Date(Math.floor(epoch) * 1000);
	return (
		`${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}_${pad(d.getHours())}` +
		`${pad(d.getMinutes())}${pad(d.getSeconds())}_${hex8}`
	);
}

function pyString(s: string): string {
	// ensure_ascii=True: every non-ASCII code unit as \uXXXX (surrogate pairs stay pairs).
	return JSON.stringify(s).replaceAll(/[\u007f-\uffff]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Python's `json.dumps(value)` with its default separators (`, ` and `: `) and ensure_ascii. */
export function pythonJson(value: unknown): string {
	if (value === null || value === undefined) {
		return 'null';
	}

	if (typeof value === 'string') {
		return pyString(value);
	}

	if (typeof value === 'number') {
		// (Python writes a float 0.0 as `0.0`; JavaScript has one number type, so this writes `0`.)
		return String(value);
	}

	if (typeof value === 'boolean') {
		return value ? 'true' : 'false';
	}

	if (Array.isArray(value)) {
		return `[${value.map(v => pythonJson(v)).join(', ')}]`;
	}

	return `{${Object.entries(value as Record<string, unknown>)
		.map(([k, v]) => `${pyString(k)}: ${pythonJson(v)}`)
		.join(', ')}}`;
}

export type EntryFields = {
	sessionKey: string;
	sessionId: string;
	/** Epoch seconds; written as naive local ISO. */
	createdAt: number;
	updatedAt: number;
	origin: SessionSourceDict | null;
	/** Reset bookkeeping of a minted entry (`was_auto_reset`, `is_fresh_reset`, ...). */
	flags?: Partial<{
		was_auto_reset: boolean;
		auto_reset_reason: string | null;
		reset_had_activity: boolean;
		prev_session_id: string | null;
		is_fresh_reset: boolean;
	}>;
};

/** `SessionEntry.to_dict()` in its key order, as a plain object (its dates as local ISO strings). */
export function sessionEntryDict(e: EntryFields): Record<string, unknown> {
	const flags = e.flags ?? {};
	return {
		session_key: e.sessionKey,
		session_id: e.sessionId,
		created_at: localIso(e.createdAt),
		updated_at: localIso(e.updatedAt),
		display_name: e.origin?.chat_name ?? null,
		platform: e.origin?.platform ?? null,
		chat_type: e.origin?.chat_type ?? 'dm',
		metadata: {},
		input_tokens: 0,
		output_tokens: 0,
		cache_read_tokens: 0,
		cache_write_tokens: 0,
		total_tokens: 0,
		last_prompt_tokens: 0,
		estimated_cost_usd: 0,
		cost_status: 'unknown',
		expiry_finalized: false,
		suspended: false,
		resume_pending: false,
		resume_reason: null,
		last_resume_marked_at: null,
		active_turn_token: null,
		active_turn_started_at: null,
		is_fresh_reset: flags.is_fresh_reset ?? false,
		was_auto_reset: flags.was_auto_reset ?? false,
		auto_reset_reason: flags.auto_reset_reason ?? null,
		reset_had_activity: flags.reset_had_activity ?? false,
		prev_session_id: flags.prev_session_id ?? null,
		...(e.origin ? {origin: e.origin} : {}),
	};
}

/** The entry as `gateway_routing.entry_json` holds it. */
export function sessionEntryJson(e: EntryFields): string {
	return pythonJson(sessionEntryDict(e));
}
