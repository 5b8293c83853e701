/**
 * Where the regions of a sealed archive lie (for byte flips by region): the first local header,
 * a member's data, the manifest member's data, the central directory. Read by yauzl through
 * source/backup/archive/zipread.ts openZip (the runner holds no SQLite connection; this is plain file I/O).
 */
import {openZip} from '../../../source/backup/archive/zipread.js';

export type Region = 'local-header' | 'data' | 'manifest' | 'central-directory' | 'end-record';
export type Span = {start: number; end: number};

export async function regions(file: string): Promise<Record<Region, Span>> {
	const z = await openZip(file);
	try {
		const dataOf = (name: RegExp): Span => {
			const m = z.members.find(x => name.test(x.name) && x.entry.compressedSize > 0) ?? z.members[0]!;
			const start = m.entry.relativeOffsetOfLocalHeader + 30 + m.entry.fileNameLength;
			return {start, end: start + m.entry.compressedSize};
		};

		return {
			'local-header': {start: 0, end: 30},
			data: dataOf(/state\.db$/),
			manifest: dataOf(/manifest/),
			'central-directory': {start: z.cdOffset, end: z.cdEnd},
			'end-record': {start: z.eocdOffset, end: z.eocdOffset + 22},
		};
	} finally {
		z.close();
	}
}
