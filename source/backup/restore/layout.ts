/**
 * An archive's layout in a restore's words: the refusal when no single Hermes root is inside, and
 * the mapping of archive paths to target paths that the restore (and its dry run) shows.
 */
import path from 'node:path';
import type {FailClosed} from '../../ground/errors.js';
import {plural} from '../../text/format.js';
import {rootPrefix} from '../archive/root.js';
import {refuse} from './refusals.js';
import type {SourceMember, Layout, Mapping} from './types.js';

export function emptyLayout(root: string | null): Layout {
	return {root, outside: [], runtime: [], sidecars: [], folded: []};
}

export function refuseRoot(archive: string, found: {why: 'none' | 'ambiguous'; candidates: string[]}): FailClosed {
	if (found.why === 'ambiguous') {
		return refuse(
			archive,
			'no-hermes-root',
			`the archive holds more than one Hermes root ` +
				`(${found.candidates.map(c => (c === '' ? 'its top' : `${c}/`)).join(', ')}): ` +
				`hfx will not guess which to restore`,
			'extract the one you mean by hand into a scratch folder (tar x … ROOT), ' +
				'check it with hfx verify, then restore from there',
		);
	}

	return refuse(
		archive,
		'no-hermes-root',
		'no Hermes root in the archive (no state.db and no profiles/*/state.db in any folder)',
		`check what it holds (tar tzf ${path.basename(archive)}); restore a backup of a Hermes home or volume`,
	);
}

export function mappingOf(members: readonly SourceMember[], layout: Layout, target: string): Mapping {
	return {
		root: layout.root,
		entries: members.map(m => ({archive: m.archivePath, target: path.join(target, ...m.path.split('/'))})),
	};
}

/** The mapping in lines: the root's prefix onto the target, each database, what is not restored and what was folded. */
export function layoutLines(mapping: Mapping, layout: Layout, target: string): string[] {
	const lines: string[] = [];
	if (mapping.root !== null) {
		const prefix = rootPrefix(mapping.root);
		const where =
			prefix === '' ? "the archive's top is the Hermes root" : `the Hermes root is ${prefix} in the archive`;
		lines.push(`layout: ${where}: ${prefix}… → ${target}${path.sep}… (${plural(mapping.entries.length, 'file')})`);
		for (const e of mapping.entries.filter(x => /\.db$/.test(x.archive))) {
			lines.push(`  ${e.archive} → ${e.target}`);
		}
	}

	if (layout.outside.length > 0) {
		lines.push(
			`not restored: ${plural(layout.outside.length, 'member')} outside the Hermes root (first: ${layout.outside[0]})`,
		);
	}

	if (layout.runtime.length > 0) {
		lines.push(
			`not restored: ${layout.runtime.join(', ')} (runtime state of the ` +
				`machine the archive was taken on: PIDs, locks, the gateway's last run ` +
				`state; Hermes' import skips it too)`,
		);
	}

	for (const s of layout.sidecars) {
		lines.push(`not restored: ${s} (a SQLite sidecar: never written as a file)`);
	}

	for (const f of layout.folded) {
		lines.push(
			f.frames > 0
				? `${f.wal}: ${f.frames} committed frame${f.frames === 1 ? '' : 's'} folded into the restored ${f.db}`
				: `${f.wal}: no committed frames (nothing to fold into ${f.db})`,
		);
	}

	return lines;
}
