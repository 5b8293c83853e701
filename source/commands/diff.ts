/**
 * `hfx diff A B`: what changed between two moments of a store (issue #24 point 4). A and B are any
 * two of a live store (a state.db or a home), an archive (zip, tar, tar.gz), a quick snapshot, a
 * pre-update emergency snapshot or a retired-WAL capture. Each is read read-only: the live store
 * through ReadOnlyStore, every other image from a private temp copy (store/image.ts; archives and
 * snapshot folders through the backup readers, backup/image-extract.ts), removed on exit and on
 * signals. Each side is analysed as `hfx scan` would (forensics/analyze.ts), then compared
 * (forensics/diff.ts). Exit 1 when a chat's restart target changed or a rollback happened between A
 * and B, 0 otherwise, 2 refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import {extractStoreImage} from '../backup/image-extract.js';
import {FailClosed, type ExitCode} from '../errors.js';
import {analyze} from '../forensics/analyze.js';
import {type DiffSide, diffHasFindings, diffStores} from '../forensics/diff.js';
import {imageScope} from '../forensics/image-scope.js';
import {type DiffSideInfo, diffJson, diffLines} from '../report/diff.js';
import {type ImageSource, type LoadedImage, classifyImage, privateImageCopy, readImage} from '../store/image.js';
import {ownerOfStore, realStorePath} from '../store/locate.js';
import {routingScopeOf} from '../store/routing-home.js';
import {removeTemp} from '../temps.js';
import {type GlobalFlags, type Io, emit, guarded} from './context.js';

export type DiffFlags = GlobalFlags & {a: string; b: string};

type Read = {info: Omit<DiffSideInfo, 'routingScope' | 'sessions' | 'messages' | 'schemaVersion' | 'openMode'>; image: LoadedImage; home: string | null; temp: string | null};

/** The file or folder a side stands for, by device and inode (a home and its state.db, a link and its target are one). */
function identityOf(src: ImageSource): string {
	const p = src.kind === 'store' ? src.db : (src.kind === 'emergency-snapshot' ? src.file : (src.kind === 'retired-capture' ? src.dir : src.path));
	const st = fs.statSync(p);
	return `${st.dev}:${st.ino}`;
}

/** A snapshot folder under `<home>/state-snapshots/`: that home. */
function snapshotHome(p: string): string | null {
	return path.basename(path.dirname(p)) === 'state-snapshots' ? path.dirname(path.dirname(p)) : null;
}

async function readSide(src: ImageSource, profile: string | undefined): Promise<Read> {
	const owner = profile ?? 'default';
	if (src.kind === 'store') {
		const {path: db, link} = realStorePath(src.db);
		const location = {path: db, owner: ownerOfStore(db).owner, label: src.db, ...(link ? {link} : {})};
		return {info: {kind: 'store', path: db, member: null, takenAt: null}, image: readImage(location), home: path.dirname(db), temp: null};
	}

	if (src.kind === 'emergency-snapshot' || src.kind === 'retired-capture') {
		const copy = privateImageCopy(src);
		const where = src.kind === 'emergency-snapshot' ? src.file : src.dir;
		const image = readImage({path: copy, owner, label: where});
		return {info: {kind: src.kind, path: where, member: src.kind === 'retired-capture' ? 'state.db + state.db-wal' : null, takenAt: null}, image, home: src.home, temp: path.dirname(copy)};
	}

	const ex = await extractStoreImage(src.path, {profile});
	const image = readImage({path: ex.db, owner, label: src.path});
	const kind = ex.kind === 'snapshot' ? 'quick-snapshot' : 'archive';
	return {info: {kind, path: src.path, member: ex.member, takenAt: ex.takenAt}, image, home: ex.home ?? (ex.kind === 'snapshot' ? snapshotHome(src.path) : null), temp: path.dirname(ex.db)};
}

/** One side, analysed; an image away from its home is judged by its home's routing scope (or the other side's, or its own rows'). */
function sideOf(r: Read, other: Read, flags: GlobalFlags): {side: DiffSide; info: DiffSideInfo} {
	const {facts} = r.image;
	let {snapshot} = r.image;
	if (r.info.kind !== 'store') {
		const home = r.home ?? other.home;
		snapshot = {...snapshot, routingScope: imageScope(snapshot, home === null ? null : routingScopeOf(path.join(home, 'state.db')))};
	}

	const messages = [...r.image.messageCounts.values()].reduce((x, y) => x + y, 0);
	const info: DiffSideInfo = {...r.info, routingScope: snapshot.routingScope, sessions: snapshot.sessions.length, messages, schemaVersion: facts.schemaVersion, openMode: facts.openMode};
	return {side: {analysis: analyze(snapshot, {maxGapSeconds: flags.maxGapSeconds}), messageCounts: r.image.messageCounts}, info};
}

export async function runDiff(flags: DiffFlags, io: Io): Promise<ExitCode> {
	const temps: string[] = [];
	return guarded(io, flags, async () => {
		try {
			const srcA = classifyImage(flags.a, flags.profile);
			const srcB = classifyImage(flags.b, flags.profile);
			if (identityOf(srcA) === identityOf(srcB)) {
				throw new FailClosed({file: path.resolve(flags.b), kind: 'same-store', reason: `the same store as ${path.resolve(flags.a)}: a diff of a moment with itself says nothing`, next: 'diff the store against a backup, a quick snapshot or an emergency snapshot of it (hfx backups lists them)'});
			}

			const readA = await readSide(srcA, flags.profile);
			temps.push(...(readA.temp ? [readA.temp] : []));
			const readB = await readSide(srcB, flags.profile);
			temps.push(...(readB.temp ? [readB.temp] : []));
			const a = sideOf(readA, readB, flags);
			const b = sideOf(readB, readA, flags);
			const diff = diffStores(a.side, b.side);
			const sides = {a: a.info, b: b.info};
			emit(io, flags, {json: () => diffJson(sides, diff), text: () => diffLines(sides, diff)});
			return diffHasFindings(diff) ? 1 : 0;
		} finally {
			for (const t of temps) {
				removeTemp(t);
			}
		}
	});
}
