/**
 * The "before" images beside a store (hermes-incidents §2.4–2.6), listed by name and size only
 * (never opened here: `hfx backups` and `hfx verify` read them): pre-update emergency snapshots
 * `state.db.pre-update-emergency-<UTC>-<pid>.bak`, quick snapshots `state-snapshots/<UTC…>/`,
 * backup zips `backups/*.zip`, and stores Hermes set aside (`.malformed-backup-*`, `.zeroed-*`,
 * `.notadb-*`, `.corrupt.*`).
 */
import path from 'node:path';
import {type BeforeImage, type BeforeImageKind, compactUtc} from '../../forensics/places.js';
import {type Entry, entriesOf} from './home-files.js';

/** `YYYY-mm-ddTHH-MM-SS-ffffffZ` (UTC) as epoch seconds. */
function dashedUtc(text: string): number | null {
	const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})(?:-(\d+))?Z$/.exec(text);
	if (!m) {
		return null;
	}

	const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
	return Number.isFinite(ms) ? ms / 1000 + (m[7] ? Number(`0.${m[7]}`) : 0) : null;
}

function image(entry: Entry, kind: BeforeImageKind, at: number | null, pid: number | null): BeforeImage {
	const link = entry.st.isSymbolicLink();
	return {
		path: entry.path,
		name: entry.name,
		kind,
		at,
		pid,
		size: entry.st.isFile() ? entry.st.size : null,
		problem: link ? 'a symbolic link: not followed' : null,
	};
}

function besideStore(storePath: string, notes: string[]): BeforeImage[] {
	const base = path.basename(storePath);
	return entriesOf(
		path.dirname(storePath),
		name => name.startsWith(`${base}.`) && !name.startsWith(`${base}.retired-wal-`),
		notes,
	).flatMap(entry => {
		const rest = entry.name.slice(base.length + 1);
		const emergency = /^pre-update-emergency-(.+Z)-(\d+)\.bak$/.exec(rest);
		if (emergency) {
			return [image(entry, 'emergency-snapshot', dashedUtc(emergency[1]!), Number(emergency[2]))];
		}

		return /^(malformed-backup-|zeroed-|notadb-|corrupt\.)/.test(rest)
			? [image(entry, 'replaced-store', null, null)]
			: [];
	});
}

/** Every before image of the home `home` holding the store `storePath`. */
export function readBeforeImages(home: string, storePath: string, notes: string[]): BeforeImage[] {
	const quick = entriesOf(path.join(home, 'state-snapshots'), () => true, notes).map(entry =>
		image(entry, 'quick-snapshot', compactUtc(entry.name.slice(0, 15)), null),
	);
	const zips = entriesOf(path.join(home, 'backups'), name => name.endsWith('.zip'), notes).map(entry =>
		image(entry, 'backup-zip', null, null),
	);
	return [...besideStore(storePath, notes), ...quick, ...zips];
}

/**
 * When an image was taken, by its name (an emergency snapshot's or a quick snapshot folder's UTC); null when its name
 * does not say.
 */
export function takenAtByName(imagePath: string): number | null {
	const name = path.basename(path.resolve(imagePath));
	const emergency = /\.pre-update-emergency-(.+Z)-\d+\.bak$/.exec(name);
	if (emergency) {
		return dashedUtc(emergency[1]!);
	}

	return path.basename(path.dirname(path.resolve(imagePath))) === 'state-snapshots'
		? compactUtc(name.slice(0, 15))
		: null;
}
