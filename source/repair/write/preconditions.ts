/**
 * The preconditions of any write to the store, each checked and reported in words. Shared by
 * `hfx repair --apply`, `--undo` and the TUI's live checklist.
 */
import {type Holder, describeHolder, findHolders, isHfx, stopHoldersStep} from '../../store/files/holders.js';
import {testMark} from '../../ground/test-pause.js';

export type Check = {
	id: 'no-holders' | 'no-deleted-wal' | 'audit-writable' | 'snapshot' | 'plan-current';
	ok: boolean;
	label: string;
	detail: string;
	/** The next safe step when it does not hold. */
	next: string | null;
};

export function holderChecks(dbPath: string): Check[] {
	// One scan of /proc: this process's own hold counts only for a deleted -wal (it must never write past one).
	testMark('holders');
	const withSelf = findHolders(dbPath, {includeSelf: true});
	const others = {...withSelf, holders: withSelf.holders.filter(h => h.pid !== process.pid)};
	const deleted = withSelf.holders.filter(h => h.holdsDeletedWal);
	const visibility = others.complete
		? ''
		: ` (${others.unreadablePids} processes could not be inspected: run as root to see them all)`;
	return [
		{
			id: 'no-holders',
			ok: others.holders.length === 0,
			label: 'no other process holds state.db, -wal or -shm',
			detail:
				others.holders.length === 0 ? `none seen in /proc${visibility}` : others.holders.map(describeHolder).join('; '),
			next: others.holders.length === 0 ? null : holdersNext(others.holders),
		},
		{
			id: 'no-deleted-wal',
			ok: deleted.length === 0,
			label: 'no process holds a deleted -wal of this database',
			detail: deleted.length === 0 ? 'none' : deleted.map(describeHolder).join('; '),
			next:
				deleted.length === 0
					? null
					: `stop pid ${deleted.map(h => h.pid).join(', ')} first: it holds an old ` +
						`WAL generation that a write now would split from`,
		},
	];
}

/**
 * The next step when other processes hold the store: hfx's own named as hfx; the gateway's danger said only when a
 * non-hfx process holds it.
 */
function holdersNext(holders: readonly Holder[]): string {
	if (holders.every(h => isHfx(h))) {
		return stopHoldersStep(
			holders,
			'run the write again (hfx only reads the store, but a write refuses while any other process holds it)',
		);
	}

	return (
		`stop the gateway and every other Hermes process using this store ` +
		`(pids ${holders.map(h => h.pid).join(', ')}): a running gateway keeps ` +
		`the old routing in memory and writes it ` +
		`back${
			holders.some(h => isHfx(h))
				? `; and ${stopHoldersStep(
						holders.filter(h => isHfx(h)),
						'run the write again',
					)}`
				: ''
		}`
	);
}
