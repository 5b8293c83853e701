/**
 * The follower's hot callbacks keep their optimised code (issue #26): made per call, a callback's optimised code was
 * held only by closures that died with the call, so each mark-compact (one every ~4 s while following 200 commits/s)
 * dropped it and TurboFan compiled it again, 20-odd times a minute each, on the V8 worker threads. Each case runs the
 * real call in a second node with a full GC between rounds: after warming up, nothing of the module compiles again.
 */
import {describe, expect, it} from 'vitest';
import {optimisedAgain} from '../helpers/optimised-again.js';
import {dmKey, session} from '../helpers/records.js';

describe('optimised code kept across mark-compacts', () => {
	it("the foreign-scope note's scan of the routing rows (every refresh)", () => {
		const setup =
			"const {foreignScopeNote} = await import('{{dist}}/store/read/load.js');\n" +
			"const snap = {routingScope: 'c', routing: Array.from({length: 8000}, (_, i) => ({scope: i % 2 ? 'a' : 'b'}))};";
		expect(optimisedAgain({module: 'store/read/load.js', setup, call: 'foreignScopeNote(snap)'})).toEqual([]);
	});

	it('the row mapper of a read (every row of every read)', () => {
		const setup =
			"const {rowMapper} = await import('{{dist}}/store/read/read-snapshot.js');\n" +
			"const row = [1, 's1', 'telegram', ...Array.from({length: 40}, () => null)];";
		const call = "rowMapper('full')(row)";
		expect(optimisedAgain({module: 'store/read/read-snapshot.js', setup, call, calls: 2000})).toEqual([]);
	});

	it('the signature match of a row against its record (every row, twice a refresh)', () => {
		const record = session({id: 's1', title: 't'});
		const setup =
			"const {signatureMatcher} = await import('{{dist}}/store/read/read-snapshot.js');\n" +
			"const schema = {sessionColumns: new Set(['ended_at', 'end_reason', 'title', 'message_count'])};\n" +
			`const record = ${JSON.stringify(record)};\n` +
			"const rows = Array.from({length: 100}, (_, i) => ['s1', null, null, i % 2 ? 't' : 'u', 1]);";
		const call = 'const match = signatureMatcher(schema); for (const row of rows) match(record, row)';
		expect(optimisedAgain({module: 'store/read/read-snapshot.js', setup, call})).toEqual([]);
	});

	it("the banner's rows at rollback risk (every frame)", () => {
		const setup =
			"const {bannerRows} = await import('{{dist}}/ui/components/banner.js');\n" +
			'const routing = Array.from({length: 8000}, () => ({rollbackRisk: false}));\n' +
			'const model = {error: null, analysing: null, analysis: {rollbacks: [], routing}};';
		expect(optimisedAgain({module: 'ui/components/banner.js', setup, call: 'bannerRows(model)'})).toEqual([]);
	});

	it("a restart's candidates in id order and their reset siblings (every chat analysed)", () => {
		const key = dmKey('42');
		const keyed = Array.from({length: 200}, (_, i) => session({id: `s${(i * 7919) % 200}`, sessionKey: key}));
		const setup =
			"const {resolveRestart} = await import('{{dist}}/forensics/routing/restart.js');\n" +
			"const {rulesFor} = await import('{{dist}}/forensics/generations.js');\n" +
			"const {buildLineage} = await import('{{dist}}/forensics/lineage/lineage.js');\n" +
			`const keyed = ${JSON.stringify(keyed)};\n` +
			"const identity = {platform: 'telegram', namespace: 'main', userId: null, chatId: null, chatType: null, " +
			'threadId: null};\n' +
			`const input = {sessionKey: ${JSON.stringify(key)}, identity, keyed, tupleRows: () => [], ` +
			'routingEntry: undefined, byId: new Map(keyed.map(s => [s.id, s])), lineage: buildLineage(keyed), ' +
			"rules: rulesFor('v30'), owner: 'default'};";
		const again = optimisedAgain({module: 'forensics/routing/restart.js', setup, call: 'resolveRestart(input)'});
		expect(again).toEqual([]);
	});

	it("the sessions pane's column values (every row drawn, every frame)", () => {
		const rows = Array.from({length: 40}, (_, i) => ({
			session: session({id: `s${i}`, title: `title ${i}`, chatId: `${i}`, chatType: 'dm'}),
			lastActive: 1_700_000_000 - i,
		}));
		const setup =
			"const {sessionColumns} = await import('{{dist}}/ui/panes/sessions.js');\n" +
			`const rows = ${JSON.stringify(rows)};`;
		const call =
			"for (const c of sessionColumns(140)) for (const r of rows) c.value(r, 1_700_000_100, 'live', c.width)";
		expect(optimisedAgain({module: 'ui/panes/sessions.js', setup, call})).toEqual([]);
	});

	it("the list's window of rows and their lines (every frame of every list)", () => {
		const setup =
			"const {KeptLines, linesWindow} = await import('{{dist}}/ui/components/list.js');\n" +
			"const items = Array.from({length: 2000}, (_, i) => 'row ' + i + ' 20260808_213339_393e622d'.repeat(i % 5));\n" +
			'const props = {items, height: 38, width: 100, line: r => r};\n' +
			'const kept = new KeptLines();\n' +
			'let n = 0;';
		const call = 'n++; linesWindow({...props, cursor: n % 200, wrap: n % 2 === 0}, 38, kept.frame(60, n % 2 === 0))';
		expect(optimisedAgain({module: 'ui/components/list.js', setup, call})).toEqual([]);
	});

	it("the sessions query's text (every refresh)", () => {
		const setup =
			"const {sessionsSql} = await import('{{dist}}/store/read/read-snapshot.js');\n" +
			"const schema = {sessionColumns: new Set(['session_key', 'title', 'ended_at']), messageColumns: new Set()};";
		const call = "sessionsSql(schema, {paged: true, columns: 'full', messageStats: false})";
		expect(optimisedAgain({module: 'store/read/read-snapshot.js', setup, call})).toEqual([]);
	});

	it("Ink's frame, built by the patched builder (every frame)", () => {
		const setup =
			"const {default: Output} = await import('{{dist}}/../node_modules/ink/build/output.js');\n" +
			"const rows = Array.from({length: 38}, (_, y) => 'row ' + y + ' · ' + 'x'.repeat(y % 9));\n" +
			'let n = 0;';
		const call =
			'const o = new Output({width: 100, height: 40}); o.write(0, 0, String(n++), {transformers: []}); ' +
			'for (let y = 0; y < rows.length; y++) o.write(0, y + 1, rows[y], {transformers: []}); o.get()';
		const module = 'node_modules/ink/build/output.js';
		expect(optimisedAgain({module, setup, call})).toEqual([]);
	});

	it("a keyed list's scan for its anchored row (every frame of an anchored list)", () => {
		const setup =
			"const {idsOf} = await import('{{dist}}/ui/panes/keyed.js');\n" +
			"const rows = Array.from({length: 2000}, (_, i) => ({session: {id: 's' + i}}));";
		const call = "idsOf(rows, r => r.session.id).indexOf('s1500')";
		expect(optimisedAgain({module: 'ui/panes/keyed.js', setup, call})).toEqual([]);
	});
});
