/**
 * Process liveness, for stale locks and debris: is a pid alive, and which process (by its start
 * time) holds it.
 */
import fs from 'node:fs';
import {errorCode} from './errors.js';

/** Field 22 of /proc/PID/stat (start time in clock ticks): tells a live pid from a reused one. */
export function processStartTicks(pid: number): string | null {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return after[19] ?? null;
	} catch {
		return null;
	}
}

export function isPidAlive(pid: number): boolean {
	if (!Number.isInteger(pid) || pid <= 0) {
		return false;
	}

	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return errorCode(error) === 'EPERM';
	}
}

/** Whether the process recorded as (pid, start ticks) still runs (a reused pid does not count). */
export function isSameProcessAlive(pid: number, startTicks: string | null): boolean {
	return isPidAlive(pid) && (startTicks === null || processStartTicks(pid) === startTicks);
}
