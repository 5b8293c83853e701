/**
 * The floors, enforced. Data flows one way, top down, and no import goes up a floor or across to
 * a sibling (outside the allow-list below, each entry with its reason):
 *
 *   8  cli/                                    the command line: the bin, the entry, the command table, flags
 *   7  commands/   ui/                         siblings: neither imports the other. A command (a file in commands/
 *                                              or its rooms, but context.ts and shared/**) imports no other command:
 *                                              what commands share is in commands/context.ts and commands/shared/**,
 *                                              which import no command
 *   6  report/                                 text renderers both of them share
 *   5  repair/ > backup/   simulator/       the writers (siblings), one way between the two: a repair takes and
 *                                              verifies backup's quick snapshot first; backup never imports repair
 *   4  live/                                   the live store and its model: re-reads the store on each commit and
 *                                              runs the engine over the rows (forensics/analysis/)
 *   3  store/                                  everything that touches live files
 *   2  forensics/                              pure functions over plain data: imports nothing else
 *   1  text/, ground/ (the terminal sinks, refusals, signals, safe file creation, temps, paths, version)
 *
 * Inside backup/, forensics/, store/ and report/, rooms in one order each (ROOMS below), every room importing only
 * the rooms below it and its folder's root files (which import no room); and no import cycle among a folder's files,
 * type-only ones included:
 *   backup/     ops/ -> restore/ -> verify/ | create/ -> check/ | archive/
 *   forensics/  timeline/ | search/ -> analysis/ -> places/ -> signatures/ | rollbacks/ -> routing/ -> lineage/
 *   store/      search/ -> read/ -> places/ | open/ -> files/ -> wal/
 *   report/     backups/ | repair/ -> analysis/ -> files/;  metrics/, sessions/ (import no room)
 * commands/' rooms are siblings: each imports only commands/shared/ and commands/context.ts (the command rule).
 *
 * Imports are read with oxc's parser: static imports, re-exports and dynamic import() of a literal.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {parseSource} from '../helpers/source-ast.js';
import {ROOT} from '../helpers/writer.js';

const SOURCE = path.join(ROOT, 'source');

const FLOORS: Record<string, number> = {
	cli: 8,
	commands: 7,
	ui: 7,
	report: 6,
	repair: 5,
	backup: 5,
	simulator: 5,
	live: 4,
	store: 3,
	forensics: 2,
	text: 1,
	ground: 1,
};

/**
 * One way across siblings of one floor: a unit may import those after it here. Every repair write
 * (apply and undo) takes and verifies a quick snapshot first (backup/create/snapshot.ts); the audit
 * trail both writers append to is store/audit-trail.ts, below them.
 */
const ONE_WAY = ['repair', 'backup'];

/** Imports across siblings that the design wants, with why. */
const ALLOWED = new Map<string, string>([
	['ground/io.ts -> text/sanitize.ts', 'the terminal sinks make every line safe (issue #17, class 8)'],
	['ground/io.ts -> text/json-chunks.ts', 'the JSON sink writes its document in safe pieces as it is made (issue #26)'],
	['ground/errors.ts -> text/sanitize.ts', 'a refusal is one safe line whatever its file name or cause holds'],
	['ground/errors.ts -> text/format.ts', 'a limit in a refusal is grouped without ICU (text/format.ts grouped)'],
]);

/** The unit a source file belongs to: its folder under source/, or for a root file cli or ground. */
function unitOf(file: string): string {
	const rel = path.relative(SOURCE, file).split(path.sep);
	if (rel.length > 1) {
		return rel[0]!;
	}

	return /^(cli|bin)/.test(rel[0]!) ? 'cli' : 'ground';
}

function sourceFiles(dir: string): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		return e.isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(e.name) ? [p] : [];
	});
}

/** Every module specifier a file imports (static, re-export, dynamic). */
function specifiers(file: string, text = fs.readFileSync(file, 'utf8')): string[] {
	const {module} = parseSource(file, text);
	const dynamic = module.dynamicImports
		.map(d => text.slice(d.moduleRequest.start, d.moduleRequest.end))
		.filter(s => /^(['"]).*\1$/.test(s))
		.map(s => s.slice(1, -1));
	return [
		...module.staticImports.map(i => i.moduleRequest.value),
		...module.staticExports.flatMap(e => e.entries.flatMap(x => (x.moduleRequest ? [x.moduleRequest.value] : []))),
		...dynamic,
	];
}

function resolveSource(from: string, spec: string): string {
	const target = path.resolve(path.dirname(from), spec);
	const ts1 = target.replace(/\.js$/, '.ts');
	return fs.existsSync(ts1) ? ts1 : target.replace(/\.js$/, '.tsx');
}

/** The violations in one file: imports up a floor or across siblings, and forensics reaching outside itself. */
function violations(file: string, text?: string): string[] {
	const from = unitOf(file);
	const out: string[] = [];
	for (const spec of specifiers(file, text)) {
		if (!spec.startsWith('.')) {
			if (from === 'forensics') {
				out.push(`forensics imports ${spec} (it must be pure: no I/O, no packages)`);
			}

			continue;
		}

		const target = resolveSource(file, spec);
		const to = unitOf(target);
		if (to === from) {
			continue;
		}

		const edge = `${path.relative(SOURCE, file)} -> ${path.relative(SOURCE, target)}`;
		if (ALLOWED.has(edge) || (ONE_WAY.includes(from) && ONE_WAY.indexOf(from) < ONE_WAY.indexOf(to))) {
			continue;
		}

		if (from === 'forensics') {
			out.push(`${edge}: forensics imports nothing outside itself`);
		} else if (FLOORS[to]! >= FLOORS[from]!) {
			out.push(
				`${edge}: ${FLOORS[to] === FLOORS[from] ? 'across siblings' : 'up a floor'} ` +
					`(${from} ${FLOORS[from]} -> ${to} ${FLOORS[to]})`,
			);
		}
	}

	return out;
}

/**
 * A command (a file in commands/ or one of its rooms, but context.ts and shared/**) imports only context.ts and
 * shared/; shared/ imports no command.
 */
function commandViolations(file: string, text?: string): string[] {
	const rel = path.relative(path.join(SOURCE, 'commands'), file).split(path.sep);
	if (rel[0] === '..' || path.isAbsolute(rel[0]!)) {
		return [];
	}

	const commands = path.join(SOURCE, 'commands');
	return specifiers(file, text)
		.filter(s => s.startsWith('.'))
		.flatMap(spec => {
			const target = path.relative(commands, resolveSource(file, spec)).split(path.sep);
			const isCommand = target[0] !== '..' && target[0] !== 'shared' && !/^context\.tsx?$/.test(target.join('/'));
			return isCommand && target.join('/') !== rel.join('/')
				? [
						`${path.relative(SOURCE, file)} -> commands/${target.join('/')}: ` +
							`commands never import each other (share through commands/context.ts or ` +
							`commands/shared/)`,
					]
				: [];
		});
}

/**
 * Every package hfx imports, and the units that may import it (node: built-ins are free, but
 * forensics imports none, above). React and Ink only in ui/; SQLite only where a store is read or
 * written.
 */
const PACKAGES: Record<string, readonly string[]> = {
	react: ['ui'],
	ink: ['ui'],
	'@inkjs/ui': ['ui'],
	'yoga-layout': ['ui'],
	'@alcalzone/ansi-tokenize': ['ui'],
	'widest-line': ['ui'],
	'indent-string': ['ui'],
	'quick-lru': ['ui'],
	'fuse.js': ['ui'],
	'string-width': ['text', 'ui'],
	'better-sqlite3': ['store', 'repair', 'backup', 'simulator'],
	yazl: ['backup'],
	yauzl: ['backup'],
	'tar-stream': ['backup'],
	yaml: ['backup'],
	'prom-client': ['report'],
	meow: ['cli'],
};

/** The package imports of one file that are off their floor, or undeclared. */
function packageViolations(file: string, text?: string): string[] {
	const unit = unitOf(file);
	return specifiers(file, text)
		.filter(s => !s.startsWith('.') && !s.startsWith('node:'))
		.flatMap(spec => {
			const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
			const allowed = PACKAGES[name];
			if (!allowed) {
				return [
					`${path.relative(SOURCE, file)} imports ${name}: undeclared (add it to ` +
						`PACKAGES in test/build/floors.test.ts with the floors it belongs to)`,
				];
			}

			return allowed.includes(unit)
				? []
				: [`${path.relative(SOURCE, file)} imports ${name}: ${name} belongs to ${allowed.join(', ')}, not ${unit}`];
		});
}

/**
 * The rooms of a folder, top down: each may import the rooms listed for it (and its folder's root files every room
 * shares); a root file imports no room.
 *
 * backup/
 *   ops/      gate, drill, doctor, list, the TUI's child runner: they use all the others
 *   restore/  a restore verifies the whole archive first (verify/) and keeps Hermes' credential names (create/walk.ts)
 *   verify/   the verifiers
 *   create/   backup, quick snapshot, the zip writer, copy, walk, lock
 *   check/    the database check of a private copy (integrity, counts), in a worker thread
 *   archive/  the readers (zip, tar), the member policy, root detection, the kind of an artifact, the seal
 * forensics/ (the root: the snapshot's types, time, durations, end reasons, findings, generations, places)
 *   timeline/  one chat's timeline and its rows; search/ the search over chats and places
 *   analysis/  the whole analysis (analyze, incremental), status, diff, activity
 *   places/    what the other places (profiles, the gateway's files) say about a chat
 *   signatures/ the session-level signatures (hermes-incidents §4): keyed rows without chat_id, stale closes...
 *   rollbacks/ rollbacks, their pairs and findings, reaped churn
 *   routing/   the routing of chats, what a restart resumes, repair-routing's orphans, the build's rules, upgrades
 *   lineage/   which row continues, branches from or was adopted into which
 * store/ (the root: locating the store, the database header, the foreign-file reads, the audit trail)
 *   search/    the store's search (FTS and scan) and the places' search
 *   read/      loading the snapshot, its rows, deltas, details, images
 *   places/    Hermes' home beside the store: spool, retired WALs, the gateway's start and logs
 *   open/      the read-only connections, the preflight, the schema, live handles and watch
 *   files/     the files beside the store: holders, -shm, their states
 *   wal/       the WAL's format, header, scan and tail
 * report/ (the root: a refusal's --json document)
 *   backups/   backup, backups, restore and drill, verify, gate, doctor: a restore's preview says a diff (analysis/)
 *   repair/    the repair plan, its --json, the audit trail: an orphan's candidate donors (analysis/)
 *   analysis/  scan, routing and diff in words and JSON, rollbacks, candidates, rule sets
 *   files/     the files beside a store and the places, in words and JSON
 *   metrics/   the metric catalogue, samples, Prometheus text, finding signals, watch events
 *   sessions/  the session table, lineage, a chat's timeline, search hits
 */
const ROOMS: Record<string, Record<string, readonly string[]>> = {
	backup: {
		ops: ['restore', 'verify', 'create', 'check', 'archive'],
		restore: ['verify', 'create', 'check', 'archive'],
		verify: ['check', 'archive'],
		create: ['check', 'archive'],
		check: [],
		archive: [],
	},
	forensics: {
		timeline: ['analysis', 'places', 'signatures', 'rollbacks', 'routing', 'lineage'],
		search: ['analysis', 'places', 'signatures', 'rollbacks', 'routing', 'lineage'],
		analysis: ['places', 'signatures', 'rollbacks', 'routing', 'lineage'],
		places: ['signatures', 'routing', 'lineage'],
		signatures: ['routing', 'lineage'],
		rollbacks: ['routing', 'lineage'],
		routing: ['lineage'],
		lineage: [],
	},
	store: {
		search: ['read', 'places', 'open', 'files', 'wal'],
		read: ['places', 'open', 'files', 'wal'],
		places: [],
		open: ['files', 'wal'],
		files: ['wal'],
		wal: [],
	},
	report: {
		backups: ['analysis', 'files'],
		repair: ['analysis', 'files'],
		analysis: ['files'],
		files: [],
		metrics: [],
		sessions: [],
	},
};

/** The folder with rooms a source file is in, and its room there ('' for a root file), or null. */
function roomOf(file: string): {folder: string; room: string} | null {
	const rel = path.relative(SOURCE, file).split(path.sep);
	if (rel.length < 2 || ROOMS[rel[0]!] === undefined) {
		return null;
	}

	return {folder: rel[0]!, room: rel.length > 2 ? rel[1]! : ''};
}

/** The imports of one file in a folder with rooms that go up or across its rooms. */
function roomViolations(file: string, text?: string): string[] {
	const at = roomOf(file);
	if (at === null) {
		return [];
	}

	const {folder, room: from} = at;
	const rooms = ROOMS[folder]!;
	if (from !== '' && rooms[from] === undefined) {
		return [`${folder}/${from}/ is no declared room (ROOMS in test/build/floors.test.ts)`];
	}

	const out: string[] = [];
	for (const spec of specifiers(file, text).filter(s => s.startsWith('.'))) {
		const target = resolveSource(file, spec);
		const to = roomOf(target);
		if (to === null || to.folder !== folder || to.room === from || to.room === '') {
			continue;
		}

		if (from !== '' && rooms[from]!.includes(to.room)) {
			continue;
		}

		const edge = `${path.relative(SOURCE, file)} -> ${path.relative(SOURCE, target)}`;
		out.push(
			from === ''
				? `${edge}: a ${folder}/ root file imports a room (the root is what the rooms share)`
				: `${edge}: ${from}/ may import only ${[...rooms[from]!, `the ${folder}/ root`].join(', ')}`,
		);
	}

	return out;
}

/**
 * The import cycles among `files` (one per back edge of a depth-first walk, each from its smallest file), type-only
 * imports included.
 */
function cycles(files: readonly string[], importsOf: (file: string) => string[]): string[] {
	const found = new Set<string>();
	const inSet = new Set(files);
	const done = new Set<string>();
	const stack: string[] = [];
	const walk = (file: string): void => {
		stack.push(file);
		for (const next of importsOf(file).filter(f => inSet.has(f) && !done.has(f))) {
			const at = stack.indexOf(next);
			if (at < 0) {
				walk(next);
				continue;
			}

			const loop = stack.slice(at);
			const start = loop.indexOf([...loop].sort()[0]!);
			found.add(
				[...loop.slice(start), ...loop.slice(0, start), loop[start]!].map(f => path.relative(SOURCE, f)).join(' -> '),
			);
		}

		stack.pop();
		done.add(file);
	};

	for (const file of files.filter(f => !done.has(f))) {
		walk(file);
	}

	return [...found].sort();
}

describe('the floors', () => {
	const files = sourceFiles(SOURCE);

	it('every source folder has a floor', () => {
		expect(files.map(unitOf).filter(u => FLOORS[u] === undefined)).toEqual([]);
	});

	it('every file imports only down a floor (every offender at once)', () => {
		expect(files.flatMap(f => violations(f))).toEqual([]);
	});

	it('commands never import each other: only commands/context.ts and commands/shared/', () => {
		expect(files.flatMap(f => commandViolations(f))).toEqual([]);
	});

	it('each package is imported only on the floors it belongs to', () => {
		expect(files.flatMap(f => packageViolations(f))).toEqual([]);
	});

	it('no import cycle anywhere in source/, type-only imports included', () => {
		const importsOf = (file: string) =>
			specifiers(file)
				.filter(s => s.startsWith('.'))
				.map(s => resolveSource(file, s));
		expect(cycles(files, importsOf)).toEqual([]);
	});

	it('catches a command importing a command, a package off its floor, and an undeclared package', () => {
		const at = (rel: string) => path.join(SOURCE, rel);
		expect(commandViolations(at('commands/demo.ts'), "import {runScan} from './scan.js';")[0]).toContain(
			'commands never import each other',
		);
		expect(commandViolations(at('commands/shared/textfile.ts'), "import {runScan} from '../scan.js';")).toHaveLength(1);
		expect(
			commandViolations(
				at('commands/demo.ts'),
				"import {a} from './shared/textfile.js';\nimport {b} from './context.js';",
			),
		).toEqual([]);
		expect(packageViolations(at('store/read/load.ts'), "import React from 'react';")[0]).toContain(
			'react belongs to ui',
		);
		expect(
			packageViolations(at('report/analysis/scan-text.ts'), "import Database from 'better-sqlite3';"),
		).toHaveLength(1);
		expect(packageViolations(at('ui/app.tsx'), "import x from 'left-pad';")[0]).toContain('undeclared');
		expect(packageViolations(at('ui/app.tsx'), "import {Box} from 'ink';\nimport fs from 'node:fs';")).toEqual([]);
	});

	it('every allow-list entry is still an import (no stale exceptions)', () => {
		const edges = new Set(
			files.flatMap(f =>
				specifiers(f)
					.filter(s => s.startsWith('.'))
					.map(s => `${path.relative(SOURCE, f)} -> ${path.relative(SOURCE, resolveSource(f, s))}`),
			),
		);
		expect([...ALLOWED.keys()].filter(e => !edges.has(e))).toEqual([]);
	});

	it('catches an import up a floor, across siblings, a dynamic one and a package in forensics', () => {
		const at = (rel: string) => path.join(SOURCE, rel);
		expect(violations(at('backup/ops/gate.ts'), "import {span} from '../../commands/format.js';")).toHaveLength(1);
		expect(violations(at('ui/app.tsx'), "import {runScan} from '../commands/scan.js';")[0]).toContain(
			'across siblings',
		);
		expect(violations(at('store/locate.ts'), "const m = await import('../repair/apply.js');")[0]).toContain(
			'up a floor',
		);
		expect(violations(at('forensics/time.ts'), "import fs from 'node:fs';")).toHaveLength(1);
		expect(violations(at('commands/analysis/scan.ts'), "import {analyze} from '../forensics/analyze.js';")).toEqual([]);
	});
});

describe('backup/ in rooms', () => {
	const files = sourceFiles(path.join(SOURCE, 'backup'));
	const importsOf = (file: string) =>
		specifiers(file)
			.filter(s => s.startsWith('.'))
			.map(s => resolveSource(file, s));

	it('every room imports only down: ops -> restore -> verify | create -> check | archive -> the root files', () => {
		expect(files.flatMap(f => roomViolations(f))).toEqual([]);
	});

	it('no import cycle among backup/ files, type-only imports included', () => {
		expect(cycles(files, importsOf)).toEqual([]);
	});

	it('catches an import up a room, across rooms, from the root into a room, and a cycle', () => {
		const at = (rel: string) => path.join(SOURCE, 'backup', rel);
		expect(roomViolations(at('archive/zipread.ts'), "import {ZipWriter} from '../create/zip-writer.js';")[0]).toContain(
			'archive/ may import only',
		);
		expect(roomViolations(at('verify/zip.ts'), "import type {Source} from '../restore/types.js';")).toHaveLength(1);
		expect(roomViolations(at('check/db-check.ts'), "import {x} from '../create/sqlite-copy.js';")[0]).toContain(
			'check/ may import only',
		);
		expect(roomViolations(at('create/backup.ts'), "import {verifyArtifact} from '../verify/verify.js';")).toHaveLength(
			1,
		);
		expect(roomViolations(at('manifest.ts'), "import {openZip} from './archive/zipread.js';")[0]).toContain(
			'backup/ root file imports a room',
		);
		expect(
			roomViolations(
				at('ops/drill.ts'),
				"import {restoreArchive} from '../restore/restore.js';\nimport {detectKind} from '../archive/detect-kind.js';",
			),
		).toEqual([]);
		expect(
			roomViolations(at('restore/source.ts'), "import {MAX_MANIFEST_BYTES} from '../verify/snapshot-folder.js';"),
		).toEqual([]);
		const [a, b, c] = ['restore/a.ts', 'restore/b.ts', 'restore/c.ts'].map(at);
		const graph = new Map([
			[a!, [b!]],
			[b!, [c!]],
			[c!, [a!]],
		]);
		expect(cycles([a!, b!, c!], f => graph.get(f) ?? [])).toEqual([
			'backup/restore/a.ts -> backup/restore/b.ts -> backup/restore/c.ts -> backup/restore/a.ts',
		]);
	});

	it('the writers import one way: repair may import backup, backup never repair', () => {
		expect(
			violations(
				path.join(SOURCE, 'backup/restore/audit.ts'),
				"import {appendAudit} from '../../repair/write-run.js';",
			)[0],
		).toContain('across siblings');
		expect(
			violations(
				path.join(SOURCE, 'repair/write/guarded-write.ts'),
				"import {takeQuickSnapshot} from '../backup/create/snapshot.js';",
			),
		).toEqual([]);
	});
});

describe('forensics/ and store/ in rooms', () => {
	const importsOf = (file: string) =>
		specifiers(file)
			.filter(s => s.startsWith('.'))
			.map(s => resolveSource(file, s));

	for (const folder of ['forensics', 'store']) {
		const files = sourceFiles(path.join(SOURCE, folder));
		it(`every ${folder}/ room imports only the rooms below it and the ${folder}/ root files`, () => {
			expect(files.flatMap(f => roomViolations(f))).toEqual([]);
		});

		it(`no import cycle among ${folder}/ files, type-only imports included`, () => {
			expect(cycles(files, importsOf)).toEqual([]);
		});
	}

	it('catches a room importing up or across, a root file importing a room, and an undeclared room', () => {
		const at = (rel: string) => path.join(SOURCE, rel);
		expect(
			roomViolations(at('forensics/lineage/lineage.ts'), "import {routeChats} from '../routing/routing.js';")[0],
		).toContain('lineage/ may import only');
		expect(
			roomViolations(at('forensics/places/elsewhere.ts'), "import {x} from '../rollbacks/rollbacks.js';"),
		).toHaveLength(1);
		expect(roomViolations(at('forensics/types.ts'), "import {x} from './lineage/lineage.js';")[0]).toContain(
			'forensics/ root file imports a room',
		);
		expect(roomViolations(at('store/wal/wal.ts'), "import {x} from '../open/open.js';")).toHaveLength(1);
		const signatures = 'forensics/signatures/session-signatures.ts';
		expect(roomViolations(at(signatures), "import {x} from '../places/elsewhere.js';")[0]).toContain(
			'signatures/ may import only',
		);
		expect(roomViolations(at('forensics/places/elsewhere.ts'), `import {x} from '../../${signatures}';`)).toEqual([]);
		expect(roomViolations(at('store/nowhere/x.ts'), '')[0]).toContain('no declared room');
		const load = "import {x} from '../open/open.js';\nimport {y} from '../locate.js';\n";
		expect(roomViolations(at('store/read/load.ts'), `${load}import {z} from '../../forensics/time.js';`)).toEqual([]);
	});

	it('the live store sits above the store: the store never imports it', () => {
		expect(
			violations(path.join(SOURCE, 'store/read/load.ts'), "import {x} from '../../live/live-model.js';")[0],
		).toContain('up a floor');
		expect(violations(path.join(SOURCE, 'live/live.ts'), "import {x} from '../store/read/load.js';")).toEqual([]);
	});
});

describe('report/ and commands/ in rooms', () => {
	const at = (rel: string) => path.join(SOURCE, rel);
	const files = sourceFiles(path.join(SOURCE, 'report'));

	it('every report/ room imports only the rooms below it: backups | repair -> analysis -> files', () => {
		expect(files.flatMap(f => roomViolations(f))).toEqual([]);
	});

	it('no import cycle among report/ files, type-only imports included', () => {
		const importsOf = (file: string) =>
			specifiers(file)
				.filter(s => s.startsWith('.'))
				.map(s => resolveSource(file, s));
		expect(cycles(files, importsOf)).toEqual([]);
	});

	it('catches a report/ room importing up or across, the root importing a room, and an undeclared room', () => {
		expect(roomViolations(at('report/analysis/diff.ts'), "import {x} from '../backups/restore.js';")[0]).toContain(
			'analysis/ may import only',
		);
		expect(
			roomViolations(at('report/files/files-json.ts'), "import {x} from '../analysis/scan-json.js';"),
		).toHaveLength(1);
		expect(
			roomViolations(at('report/metrics/watch-events.ts'), "import {x} from '../sessions/search.js';"),
		).toHaveLength(1);
		expect(roomViolations(at('report/refusal-json.ts'), "import {x} from './analysis/scan-json.js';")[0]).toContain(
			'report/ root file imports a room',
		);
		expect(roomViolations(at('report/nowhere/x.ts'), '')[0]).toContain('no declared room');
		expect(roomViolations(at('report/backups/restore.ts'), "import {x} from '../analysis/diff.js';")).toEqual([]);
	});

	it('catches a command importing a command in its room or another; rooms share shared/ and context.ts', () => {
		expect(
			commandViolations(at('commands/analysis/scan.ts'), "import {x} from '../sessions/lineage.js';")[0],
		).toContain('commands never import each other');
		expect(commandViolations(at('commands/analysis/scan.ts'), "import {x} from './routing.js';")).toHaveLength(1);
		expect(commandViolations(at('commands/shared/textfile.ts'), "import {x} from '../metrics/watch.js';")).toHaveLength(
			1,
		);
		const shared = "import {b} from '../context.js';\nimport {c} from '../../report/metrics/watch-events.js';";
		expect(commandViolations(at('commands/metrics/watch.ts'), shared)).toEqual([]);
	});
});
