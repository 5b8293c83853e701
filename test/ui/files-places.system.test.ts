/**
 * The Files pane (issue #24 point 1): after the store's own files, every other place the
 * conversation can be beside it, with its meaning, from the real files feed over a real LiveStore
 * on a home after a deleted-WAL write halt (test/helpers/write-halt.ts). No line over 80 columns
 * in the places section, and no evidence byte changed.
 */
import {afterAll, beforeAll, expect, it} from 'vitest';
import {LiveStore} from '../../source/live/live.js';
import {startFilesProbe} from '../../source/ui/sources/files-feed.js';
import type {FilesModel} from '../../source/ui/sources/files-model.js';
import {folderHashes} from '../helpers/folder-hashes.js';
import {type HaltHome, haltHome} from '../helpers/write-halt.js';

let h: HaltHome;

beforeAll(async () => {
	h = await haltHome();
}, 60_000);

afterAll(() => h?.remove());

it(
	'lists the capture, the diverted and legacy transcripts and each spool ' +
		'file with its meaning; the live findings hold the halt',
	async () => {
		const before = folderHashes(h.dir);
		const live = LiveStore.open({path: h.db, owner: 'default', label: 'default'}, {watch: false});
		const files = startFilesProbe(live, {firstPollMs: 0});
		try {
			const model = await new Promise<FilesModel>((resolve, reject) => {
				const timer = setTimeout(() => reject(new Error('no files model in 20 s')), 20_000);
				const done = (m: FilesModel) => {
					clearTimeout(timer);
					resolve(m);
				};

				if (files.model) {
					done(files.model);
				}

				files.subscribe(done);
			});
			const text = model.lines.map(l => l.text);
			const from = text.findIndex(l => l.startsWith('Other places the conversation can be'));
			expect(from).toBeGreaterThan(0);
			const section = text.slice(from);
			expect(section).toContain(`  ${h.captureName}/`);
			expect(section.join('\n')).toMatch(/retired WAL of a write halt, captured 2026-08-07 01:00:00Z, pid \d+: 3/);
			expect(section.join('\n')).toContain('legacy transcript, 4 lines');
			expect(section.join('\n')).toMatch(/Hermes will\s+NOT\s+replay it/);
			expect(model.lines.find(l => l.text === `  sessions/${h.k}.jsonl`)?.tone).toBe('danger');
			expect(section.filter(l => [...l].length > 80)).toEqual([]);
			// The live analysis the Findings pane and the banner show holds the halt too.
			expect(live.model.analysis.findings.find(f => f.kind === 'write-halt')).toMatchObject({
				severity: 'critical',
				subject: h.captureName,
			});
		} finally {
			files.close();
			live.close();
		}

		expect(folderHashes(h.dir)).toEqual(before);
	},
);
