/**
 * The manifest inside one of our zip archives, read alone (the central directory and one member,
 * its CRC-32 checked): what `--keep` and `gate` ask of an archive before they trust or prune it
 * (is it complete, whose home is it).
 */
import {MANIFEST_NAME, type Manifest, parseManifest} from '../manifest.js';
import {openZip, readMember} from './zipread.js';

/** The archive's manifest, or null when it has none or it cannot be read (never throws). */
export async function readArchiveManifest(file: string): Promise<Manifest | null> {
	try {
		const z = await openZip(file);
		try {
			const m = z.members.find(x => x.name === MANIFEST_NAME);
			if (!m) {
				return null;
			}

			const chunks: Buffer[] = [];
			const d = await readMember(z, m, c => chunks.push(c));
			return d.crcOk ? parseManifest(Buffer.concat(chunks)) : null;
		} finally {
			z.close();
		}
	} catch {
		return null;
	}
}
