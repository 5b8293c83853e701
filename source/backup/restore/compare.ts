/**
 * What a restore would drop (issue 15, point 3): each database of the archive (its verified temp
 * extraction) against the live store it would replace (opened read-only: inventory.ts), session
 * by session: the sessions and messages the live store has and the archive lacks (written after
 * the archive was taken), and the reverse. By session id, and per session by message count and
 * highest message id.
 */
import fs from 'node:fs';
import path from 'node:path';
import {plural} from '../../text/format.js';
import {type Inventory, inventoryOfLive} from '../inventory.js';
import type {DbComparison, Side} from './types.js';

/** What `live` has that `other` lacks: whole sessions, and in shared sessions the messages above `other`'s count. */
function lacking(
	live: Record<string, {messages: number; maxId: number | null}>,
	other: Record<string, {messages: number; maxId: number | null}>,
): Side {
	const out: Side = {sessions: 0, messages: 0};
	for (const [id, s] of Object.entries(live)) {
		const o = other[id];
		out.sessions += o ? 0 : 1;
		out.messages += o ? Math.max(0, s.messages - o.messages) : s.messages;
	}

	return out;
}

/** Whether the restore would drop anything the live store has (or could not tell). */
export function wouldDrop(c: readonly DbComparison[]): boolean {
	return c.some(x => x.error !== null || x.dropped.sessions > 0 || x.dropped.messages > 0);
}

/** One line per database: "state.db: the restore would DROP 2 sessions and 40 messages …" (`done`: what it dropped). */
export function comparisonLines(c: readonly DbComparison[], done = false): string[] {
	return done
		? c.map(doneLine)
		: c.map(x => {
				if (x.error) {
					return `${x.path}: cannot tell what the restore would drop: ${x.error}`;
				}

				if (!x.live) {
					return (
						`${x.path}: no live store there: nothing to drop (the archive ` +
						`brings ${x.added.sessions} sessions, ${x.added.messages} messages)`
					);
				}

				const drop =
					x.dropped.sessions + x.dropped.messages > 0
						? `would DROP ${plural(x.dropped.sessions, 'session')} ` +
							`and ${plural(x.dropped.messages, 'message')} the live store has and the ` +
							`archive lacks`
						: 'drops nothing the live store has';
				return (
					`${x.path}: the restore ${drop}; it brings ` +
					`back ${plural(x.added.sessions, 'session')} ` +
					`and ${plural(x.added.messages, 'message')} the live store lacks`
				);
			});
}

/**
 * After the restore: what it dropped from the store that was there (kept in the pre-restore folder) and brought back.
 */
function doneLine(x: DbComparison): string {
	if (x.error) {
		return `${x.path}: what the restore dropped could not be told: ${x.error}`;
	}

	if (!x.live) {
		return (
			`${x.path}: there was no store there: nothing dropped (the archive ` +
			`brought ${x.added.sessions} sessions, ${x.added.messages} messages)`
		);
	}

	const drop =
		x.dropped.sessions + x.dropped.messages > 0
			? `dropped ${plural(x.dropped.sessions, 'session')} ` +
				`and ${plural(x.dropped.messages, 'message')} the store had and the ` +
				`archive lacked (the store as it was is in the pre-restore folder)`
			: 'dropped nothing the store had';
	return (
		`${x.path}: the restore ${drop}; it brought ` +
		`back ${plural(x.added.sessions, 'session')} ` +
		`and ${plural(x.added.messages, 'message')} the store lacked`
	);
}

export function compareInventories(
	rel: string,
	live: string | null,
	liveInv: Inventory | null,
	archiveInv: Inventory,
): DbComparison {
	const none: Side = {sessions: 0, messages: 0};
	if ('error' in archiveInv) {
		return {
			path: rel,
			live,
			dropped: none,
			added: none,
			error: `the archive's copy could not be read (${archiveInv.error})`,
		};
	}

	if (liveInv && 'error' in liveInv) {
		return {path: rel, live, dropped: none, added: none, error: `the live store could not be read (${liveInv.error})`};
	}

	const liveSessions = liveInv?.sessions ?? {};
	return {
		path: rel,
		live,
		dropped: lacking(liveSessions, archiveInv.sessions),
		added: lacking(archiveInv.sessions, liveSessions),
		error: null,
	};
}

/** Every archived Hermes store against the store it would replace under `target` (none there: nothing dropped). */
export function compareWithLive(
	target: string,
	databases: ReadonlyArray<{path: string; inventory?: Inventory | null}>,
): DbComparison[] {
	return databases
		.filter(d => d.inventory)
		.map(d => {
			const live = path.join(target, ...d.path.split('/'));
			const exists = fs.existsSync(live);
			return compareInventories(d.path, exists ? live : null, exists ? inventoryOfLive(live) : null, d.inventory!);
		});
}
