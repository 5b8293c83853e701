/**
 * When the home's gateway started, from `gateway_state.json` (hermes-incidents §3.1: `pid`,
 * `start_time` in process start ticks, `gateway_state`), trusted only when that pid runs now with
 * that very start (its /proc/<pid>/stat start ticks), converted with the boot time of
 * /proc/stat. A spool file older than that start survived the start's replay (§2.2).
 */
import fs from 'node:fs';
import path from 'node:path';
import type {GatewayStart} from '../../forensics/places.js';
import {readForeignTextOrEmpty} from '../foreign-file.js';
import {readText} from './home-files.js';

/** Clock ticks per second of /proc's start times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Field 22 of /proc/<pid>/stat (after the parenthesised command, which may hold spaces). */
function startTicksOf(pid: number): number | null {
	const stat = readForeignTextOrEmpty(`/proc/${pid}/stat`);
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	const ticks = Number(fields[19]);
	return stat !== '' && Number.isFinite(ticks) ? ticks : null;
}

function bootTime(): number | null {
	const m = /^btime (\d+)$/m.exec(readForeignTextOrEmpty('/proc/stat'));
	return m ? Number(m[1]) : null;
}

/**
 * The home's `gateway_state.json`, only while its gateway runs: a running state whose `pid` runs
 * now with that very start. A file left by a gateway that is gone (a crash survives it), or written
 * by another process, is null (hermes-incidents §3.1: #110420).
 */
export function liveGatewayState(home: string): {state: Record<string, unknown>; start: GatewayStart} | null {
	const file = path.join(home, 'gateway_state.json');
	const st = fs.lstatSync(file, {throwIfNoEntry: false});
	if (!st) {
		return null;
	}

	const read = readText({name: 'gateway_state.json', path: file, st}, 1024 * 1024);
	let state: Record<string, unknown>;
	try {
		state = JSON.parse(read.text ?? 'null') as Record<string, unknown>;
	} catch {
		return null;
	}

	const pid = state?.pid;
	const ticks = state?.start_time;
	if (
		typeof pid !== 'number' ||
		!Number.isInteger(pid) ||
		pid <= 0 ||
		typeof ticks !== 'number' ||
		state.gateway_state !== 'running'
	) {
		return null;
	}

	const boot = bootTime();
	return boot !== null && startTicksOf(pid) === ticks
		? {state, start: {pid, at: boot + ticks / TICKS_PER_SECOND}}
		: null;
}

export function gatewayStart(home: string): GatewayStart | null {
	return liveGatewayState(home)?.start ?? null;
}
