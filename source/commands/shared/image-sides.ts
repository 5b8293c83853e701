/**
 * Two moments of a store, read and analysed for a diff (`hfx diff`, and the per-chat lines of a
 * restore's dry run): each side classified (store/read/image.ts), read from where it lies (a live store,
 * through readStore: in place, never copied) or from a private temp copy (every other image; archives and snapshot
 * folders through the backup readers, backup/restore/image-extract.ts, this side's only import from
 * backup/), analysed as `hfx scan` would, and compared (forensics/analysis/diff.ts). The private copies are
 * removed by `close()`, and on exit and signals by the temp registry.
 */
import fs from 'node:fs';
import path from 'node:path';
import {type ExtractOptions, extractStoreImage} from '../../backup/restore/image-extract.js';
import {FailClosed} from '../../ground/errors.js';
import {analyze} from '../../forensics/analysis/analyze.js';
import {type Diff, type DiffSide, diffStores} from '../../forensics/analysis/diff.js';
import {imageScope} from '../../forensics/image-scope.js';
import type {DiffSideInfo} from '../../report/analysis/diff.js';
import {
	type ImageSource,
	type LoadedImage,
	classifyImage,
	privateImageCopy,
	readImage,
} from '../../store/read/image.js';
import {ownerOfStore, realStorePath} from '../../store/locate.js';
import {routingScopeOf} from '../../store/read/routing-home.js';
import {removeTemp} from '../../ground/temps.js';
import type {GlobalFlags} from '../context.js';

type Read = {
	info: Omit<DiffSideInfo, 'routingScope' | 'sessions' | 'messages' | 'schemaVersion' | 'openMode'>;
	image: LoadedImage;
	home: string | null;
};

/**
 * The file or folder a side stands for, by device and inode (a home and its state.db, a link and its target are one).
 */
function identityOf(src: ImageSource): string {
	const p =
		src.kind === 'store'
			? src.db
			: src.kind === 'emergency-snapshot'
				? src.file
				: src.kind === 'retired-capture'
					? src.dir
					: src.path;
	const st = fs.statSync(p);
	return `${st.dev}:${st.ino}`;
}

/** A snapshot folder under `<home>/state-snapshots/`: that home. */
function snapshotHome(p: string): string | null {
	return path.basename(path.dirname(p)) === 'state-snapshots' ? path.dirname(path.dirname(p)) : null;
}

async function readSide(src: ImageSource, options: ExtractOptions, temps: string[]): Promise<Read> {
	const owner = options.profile ?? 'default';
	if (src.kind === 'store') {
		const {path: db, link} = realStorePath(src.db);
		const location = {path: db, owner: ownerOfStore(db).owner, label: src.db, ...(link ? {link} : {})};
		return {
			info: {kind: 'store', path: db, member: null, takenAt: null},
			image: readImage(location),
			home: path.dirname(db),
		};
	}

	if (src.kind === 'emergency-snapshot' || src.kind === 'retired-capture') {
		const copy = privateImageCopy(src);
		temps.push(path.dirname(copy));
		const where = src.kind === 'emergency-snapshot' ? src.file : src.dir;
		const image = readImage({path: copy, owner, label: where});
		return {
			info: {
				kind: src.kind,
				path: where,
				member: src.kind === 'retired-capture' ? 'state.db + state.db-wal' : null,
				takenAt: null,
			},
			image,
			home: src.home,
		};
	}

	const ex = await extractStoreImage(src.path, options);
	temps.push(path.dirname(ex.db));
	const image = readImage({path: ex.db, owner, label: src.path});
	const kind = ex.kind === 'snapshot' ? 'quick-snapshot' : 'archive';
	return {
		info: {kind, path: src.path, member: ex.member, takenAt: ex.takenAt},
		image,
		home: ex.home ?? (ex.kind === 'snapshot' ? snapshotHome(src.path) : null),
	};
}

/**
 * One side, analysed; an image away from its home is judged by its home's routing scope (or the other side's, or its
 * own rows').
 */
function sideOf(r: Read, other: Read, flags: Pick<GlobalFlags, 'maxGapSeconds'>): {side: DiffSide; info: DiffSideInfo} {
	const {facts} = r.image;
	let {snapshot} = r.image;
	if (r.info.kind !== 'store') {
		const home = r.home ?? other.home;
		snapshot = {
			...snapshot,
			routingScope: imageScope(snapshot, home === null ? null : routingScopeOf(path.join(home, 'state.db'))),
		};
	}

	const messages = [...r.image.messageCounts.values()].reduce((x, y) => x + y, 0);
	const info: DiffSideInfo = {
		...r.info,
		routingScope: snapshot.routingScope,
		sessions: snapshot.sessions.length,
		messages,
		schemaVersion: facts.schemaVersion,
		openMode: facts.openMode,
	};
	return {
		side: {analysis: analyze(snapshot, {maxGapSeconds: flags.maxGapSeconds}), messageCounts: r.image.messageCounts},
		info,
	};
}

export type DiffPair = {sides: {a: DiffSideInfo; b: DiffSideInfo}; diff: Diff};

/**
 * A and B read, analysed and compared; every private copy removed before it returns (or throws). `b` may have been
 * verified by the caller.
 */
export async function diffPair(
	a: string,
	b: string,
	flags: Pick<GlobalFlags, 'maxGapSeconds' | 'profile'>,
	bOptions: Pick<ExtractOptions, 'verifiedManifest'> = {},
): Promise<DiffPair> {
	const temps: string[] = [];
	try {
		const srcA = classifyImage(a, flags.profile);
		const srcB = classifyImage(b, flags.profile);
		if (identityOf(srcA) === identityOf(srcB)) {
			throw new FailClosed({
				file: path.resolve(b),
				kind: 'same-store',
				reason: `the same store as ${path.resolve(a)}: a diff of a moment with itself says nothing`,
				next:
					'diff the store against a backup, a quick snapshot or an emergency ' +
					'snapshot of it (hfx backups lists them)',
			});
		}

		const readA = await readSide(srcA, {profile: flags.profile}, temps);
		const readB = await readSide(srcB, {profile: flags.profile, ...bOptions}, temps);
		const sa = sideOf(readA, readB, flags);
		const sb = sideOf(readB, readA, flags);
		return {sides: {a: sa.info, b: sb.info}, diff: diffStores(sa.side, sb.side)};
	} finally {
		for (const t of temps) {
			removeTemp(t);
		}
	}
}
