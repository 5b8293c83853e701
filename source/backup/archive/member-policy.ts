/**
 * The one member policy for every archive hfx reads (zip and tar), in verify and restore alike.
 * Pure: it sees what a parser reports about each member (its raw name, type, link target, size)
 * and says which members are refused and why; it knows nothing of zip or tar bytes.
 *
 * Refused (a restore never writes the archive; verify calls it damaged): an empty name, a NUL or
 * other control byte, a backslash, an absolute path or a drive letter, a ".." segment, a link of
 * any kind (symbolic or hard, whatever its target), a device, FIFO, socket or unknown type, a size
 * that is not a whole number of bytes, a name that appears twice, names that normalize to the
 * same path ("./a", "a//b/" and "a", "a/b"), and a file standing where another member needs a
 * folder. With `fold` (for a case- or normalization-insensitive disk), names that differ only by
 * letter case or Unicode form clash too; off by default, since on Linux they are two files and a
 * home holding both (a cloned repository in skills/) must still verify.
 *
 * Sidecars (`X.db-wal`, `-shm`, `-journal`, or beside any member X) are a finding of their own:
 * replayed or moved over a restored database they would change it, so verify says so (exit 1)
 * and a restore never writes them.
 */
export type MemberType = 'file' | 'dir' | 'symlink' | 'hardlink' | 'device' | 'fifo' | 'socket' | 'other';

export type MemberFacts = {
	/** The name exactly as the archive stores it (decoded to text). */
	name: string;
	type: MemberType;
	/** A link's target, when the format says (tar); refused links are named with it. */
	linkTarget?: string | null;
	size?: number;
};

export type MemberFinding = {
	/** Position of the member in the archive (0-based). */
	index: number;
	name: string;
	kind: 'refused' | 'duplicate' | 'collision' | 'sidecar';
	what: string;
};

export const SIDECAR_SUFFIXES = ['-wal', '-shm', '-journal'] as const;

const DB_NAME = /\.(db|sqlite|sqlite3)$/i;

/** The name as a relative POSIX path: "./" and empty segments dropped, a dir's trailing "/" too. */
export function normalizeName(name: string): string {
	return name
		.split('/')
		.filter(s => s !== '' && s !== '.')
		.join('/');
}

/** Why one member must never be written, from its own facts alone; null when it may be. */
export function refusalReason(m: MemberFacts): string | null {
	const name = m.name;
	// "./" (tar -C DIR .) is the archive's own root folder; any other empty path names nothing.
	if (normalizeName(name) === '' && !(m.type === 'dir' && name.startsWith('.'))) {
		return 'empty name';
	}

	if (name.includes('\0')) {
		return 'NUL byte in the name';
	}

	// eslint-disable-next-line no-control-regex
	if (/[\u0001-\u001F\u007F]/.test(name)) {
		return 'control character in the name';
	}

	if (name.includes('\\')) {
		return 'backslash in the name (a Windows path)';
	}

	if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) {
		return 'absolute path';
	}

	if (name.split('/').includes('..')) {
		return '".." path segment (would write outside the target)';
	}

	return typeReason(m);
}

function typeReason(m: MemberFacts): string | null {
	const to = m.linkTarget ? ` to ${JSON.stringify(m.linkTarget)}` : '';
	switch (m.type) {
		case 'file':
		case 'dir': {
			break;
		}

		case 'symlink': {
			return `symbolic link${to}`;
		}

		case 'hardlink': {
			return `hard link${to}`;
		}

		case 'device':
		case 'fifo':
		case 'socket': {
			return `${m.type} member`;
		}

		default: {
			return 'member of an unsupported type';
		}
	}

	if (m.size !== undefined && (!Number.isSafeInteger(m.size) || m.size < 0)) {
		return `impossible size (${m.size})`;
	}

	return null;
}

/** The sidecar suffix of a name whose stem is a database name or another member; null otherwise. */
export function sidecarSuffix(normalized: string, others: ReadonlySet<string>): string | null {
	for (const s of SIDECAR_SUFFIXES) {
		if (normalized.endsWith(s)) {
			const stem = normalized.slice(0, -s.length);
			if (stem !== '' && (DB_NAME.test(stem) || others.has(stem))) {
				return s;
			}
		}
	}

	return null;
}

export type PolicyOptions = {
	/** Names differing only by letter case or Unicode form clash (a case-insensitive target). */
	fold?: boolean;
};

/** The key two names share when the disk would store them as one file. */
function collisionKey(normalized: string, fold: boolean): string {
	return fold ? normalized.normalize('NFC').toLowerCase() : normalized;
}

/**
 * Judges every member, in any order (the findings do not depend on it): each refused member, each
 * repeated or colliding name, each file standing where another member needs a folder, each sidecar.
 */
export function judgeMembers(members: readonly MemberFacts[], options: PolicyOptions = {}): MemberFinding[] {
	const findings: MemberFinding[] = [];
	const normalized = members.map(m => normalizeName(m.name));
	const safe = new Set<number>();
	for (const [index, m] of members.entries()) {
		const why = refusalReason(m);
		if (why) {
			findings.push({index, name: m.name, kind: 'refused', what: `unsafe member: ${why}`});
		} else {
			safe.add(index);
		}
	}

	findings.push(...nameClashes(members, normalized, safe, options.fold ?? false));
	const files = new Set([...safe].filter(i => members[i]!.type === 'file').map(i => normalized[i]!));
	for (const i of safe) {
		const m = members[i]!;
		if (m.type !== 'file') {
			continue;
		}

		const suffix = sidecarSuffix(normalized[i]!, files);
		if (suffix) {
			findings.push({
				index: i,
				name: m.name,
				kind: 'sidecar',
				what:
					`a SQLite ${suffix} sidecar in the archive: extracted ` +
					`beside ${normalized[i]!.slice(0, -suffix.length)} it would be replayed ` +
					`into it or corrupt it; hfx restore never writes one`,
			});
		}
	}

	return findings.sort((a, b) => a.index - b.index);
}

/** Names seen twice, names that land on one path, and a file where a folder is needed. */
function nameClashes(
	members: readonly MemberFacts[],
	normalized: string[],
	safe: Set<number>,
	fold: boolean,
): MemberFinding[] {
	const findings: MemberFinding[] = [];
	const byKey = new Map<string, number>();
	const fileKeys = new Map<string, number>();
	for (const i of safe) {
		const key = collisionKey(normalized[i]!, fold);
		const first = byKey.get(key);
		const m = members[i]!;
		if (first === undefined) {
			byKey.set(key, i);
			if (m.type !== 'dir') {
				fileKeys.set(key, i);
			}

			continue;
		}

		const other = members[first]!;
		if (other.type === 'dir' && m.type === 'dir') {
			continue;
		}

		const kind = other.name === m.name ? 'duplicate' : 'collision';
		findings.push({
			index: i,
			name: m.name,
			kind,
			what:
				kind === 'duplicate'
					? `the name appears more than once (first as member #${first + 1})`
					: `lands on the same path as member #${first + 1} ${JSON.stringify(other.name)}`,
		});
	}

	for (const i of safe) {
		const parts = collisionKey(normalized[i]!, fold).split('/');
		for (let n = 1; n < parts.length; n++) {
			const holder = fileKeys.get(parts.slice(0, n).join('/'));
			if (holder !== undefined) {
				findings.push({
					index: i,
					name: members[i]!.name,
					kind: 'collision',
					what:
						`needs the folder ${JSON.stringify(parts.slice(0, n).join('/'))}, which ` +
						`member #${holder + 1} is a file`,
				});
				break;
			}
		}
	}

	return findings;
}

/** One line for a finding: where (the member) and what. */
export function findingWhere(f: MemberFinding): string {
	return `member #${f.index + 1} ${JSON.stringify(f.name)}`;
}
