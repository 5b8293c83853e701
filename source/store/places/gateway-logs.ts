/**
 * The gateway's log lines that place restarts and rotations in time (hermes-incidents.md §6):
 * `<home>/logs/gateway.log*` and `errors.log*` beside the store (`agent.log*` where there is no
 * gateway.log: it repeats the gateway's lines), when present. Each
 * file is opened as a foreign file (regular files only, never through a link, no blocking open) and
 * only its last MAX_LOG_BYTES are read. asctime is local time: it is read at this machine's UTC
 * offset for that instant (the gateway host's, when hfx runs beside the agent), and each line says
 * which offset it was read at. A line logged in several files (agent.log holds gateway.log's) counts once.
 */
import fs from 'node:fs';
import path from 'node:path';
import {type LocalTime, parseLogLine} from '../../forensics/timeline/gateway-log-lines.js';
import type {TimedLogLine} from '../../forensics/timeline/timeline-types.js';
import {openForeign} from '../foreign-file.js';

export const MAX_LOG_BYTES = 16 * 1024 * 1024;

/** gateway.log first (its lines are the gateway's own), then errors.log, then agent.log; rotations newest first. */
const LOG_NAME = /^(gateway|errors|agent)\.log(?:\.(\d+))?$/;
const ORDER = ['gateway', 'errors', 'agent'];

export type GatewayLogs = {
	dir: string;
	/** The files read, in the order read. */
	files: string[];
	lines: TimedLogLine[];
	/** What could not be read, or was read only in part, one line each. */
	notes: string[];
};

/** An asctime's parts read as local time of this machine; the offset it was read at, `+01:00`. */
export function localEpoch(t: LocalTime): {at: number; offset: string} {
	const date = new Date(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, t.ms);
	const minutes = -date.getTimezoneOffset();
	const abs = Math.abs(minutes);
	return {
		at: date.getTime() / 1000,
		offset:
			`${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:` +
			`${String(abs % 60).padStart(2, '0')}`,
	};
}

function logFiles(dir: string): string[] {
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return [];
	}

	const rank = (n: string) => {
		const m = LOG_NAME.exec(n)!;
		return ORDER.indexOf(m[1]!) * 1000 + Number(m[2] ?? 0);
	};

	const logs = names.filter(n => LOG_NAME.test(n));
	// Every line worth matching is a gateway.* logger's: gateway.log holds them all, and agent.log
	// (everything, rotated soonest) only repeats them. errors.log (warnings, rotated slowest) may
	// reach further back.
	const gateway = logs.some(n => n.startsWith('gateway.'));
	return logs.filter(n => !(gateway && n.startsWith('agent.'))).sort((a, b) => rank(a) - rank(b));
}

/** Why a log file was not read, in words (a refusal's reason, or the OS error). */
function whyNotRead(error: unknown): string {
	const code = (error as NodeJS.ErrnoException).code;
	if (code === 'ELOOP') {
		return 'a symbolic link: hfx does not follow it';
	}

	return (error as {reason?: string}).reason ?? code ?? 'error';
}

/** The last MAX_LOG_BYTES of a log file, from its first whole line. */
function tailText(file: string): {text: string; truncated: boolean} {
	const {fd, st} = openForeign(file, {noFollow: true, what: 'it as a gateway log'});
	try {
		const start = Math.max(0, st.size - MAX_LOG_BYTES);
		const buf = Buffer.allocUnsafe(Math.min(st.size, MAX_LOG_BYTES));
		let got = 0;
		while (got < buf.length) {
			const n = fs.readSync(fd, buf, got, buf.length - got, start + got);
			if (n === 0) {
				break;
			}

			got += n;
		}

		const text = buf.subarray(0, got).toString('utf8');
		return start === 0 ? {text, truncated: false} : {text: text.slice(text.indexOf('\n') + 1), truncated: true};
	} finally {
		fs.closeSync(fd);
	}
}

/** The §6.2 lines of the logs beside the store (none when there is no logs folder). */
export function readGatewayLogs(storePath: string): GatewayLogs {
	const dir = path.join(path.dirname(path.resolve(storePath)), 'logs');
	const result: GatewayLogs = {dir, files: [], lines: [], notes: []};
	const seen = new Set<string>();
	for (const name of logFiles(dir)) {
		let read: {text: string; truncated: boolean};
		try {
			read = tailText(path.join(dir, name));
		} catch (error) {
			result.notes.push(`${name}: not read (${whyNotRead(error)})`);
			continue;
		}

		result.files.push(name);
		if (read.truncated) {
			result.notes.push(`${name}: only its last ${MAX_LOG_BYTES / 1024 / 1024} MiB were read`);
		}

		read.text.split('\n').forEach((text, i) => {
			const line = parseLogLine(text.endsWith('\r') ? text.slice(0, -1) : text);
			const id = line ? `${line.asctime}\u0000${line.message}` : '';
			if (line && !seen.has(id)) {
				seen.add(id);
				result.lines.push({...line, ...localEpoch(line.local), file: name, lineNumber: i + 1});
			}
		});
	}

	result.lines.sort((a, b) => a.at - b.at);
	return result;
}
