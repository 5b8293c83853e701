/**
 * Class 10, schema objects (issue #29, class 2: one odd store never blinds the rest): each table
 * hfx reads (sessions, messages, gateway_routing, schema_version) as a VIEW, a WITHOUT ROWID table
 * or an FTS5 virtual table is that store's one-line refusal (exit 2, never an internal error); a
 * WITHOUT ROWID gateway_routing (read by its columns) is read as usual; a column the rules decide on
 * that is missing is a finding naming it. Under a home, scan, metrics, watch and the restore drill
 * still report the other stores.
 */
import fs from 'node:fs';
import path from 'node:path';
import {type OddKind, dropColumn, makeOdd} from '../../helpers/odd-schema.js';
import {home} from '../fixtures.js';
import type {Fault, RunResult, Step} from '../types.js';
import {finding, ok, refused, seen, step, verdict} from './kit.js';

const ODD_DOWN = /"event":"store-down","reason":"schema-object"[^\n]*"profile":"work"/;
const DEFAULT_FOLLOWED = /"event":"rollback-risk-raised"[^\n]*"profile":"default"/;

const WORDS: Record<OddKind, string> = {
	view: 'a VIEW',
	'without-rowid': 'a WITHOUT ROWID table',
	virtual: 'a virtual table',
};

/** The read-only commands on one store, each refused in the store's one line naming the object. */
function refusedBy(db: string, table: string, kind: OddKind): Step[] {
	const match = new RegExp(`state\\.db: its ${table} is ${WORDS[kind]}.*Next: `);
	return [['scan'], ['sessions', '--json'], ['routing'], ['lineage', 'nosuchsession']].map(a =>
		refused([...a, '--db', db], match),
	);
}

function odd(id: string, table: string, kind: OddKind): Fault {
	return {
		id,
		cls: 11,
		outcome: 'refused',
		notes: `the home's state.db with its ${table} as ${WORDS[kind]}`,
		async setup(t) {
			const h = await home(t.dir('home'));
			makeOdd(h.db, table, kind);
			return {evidence: [h.root], steps: refusedBy(h.db, table, kind)};
		},
	};
}

function missing(id: string, table: string, column: string): Fault {
	return {
		id,
		cls: 11,
		outcome: 'finding',
		notes: `the home's state.db without ${table}.${column}: a finding that names it`,
		async setup(t) {
			const h = await home(t.dir('home'));
			dropColumn(h.db, table, column);
			const named = new RegExp(`${table}\\.${column} is missing: .*cannot be (decided|told)`);
			return {
				evidence: [h.root],
				steps: [
					finding(['scan', '--db', h.db], {match: named}),
					finding(['scan', '--json', '--db', h.db], {match: /"kind": ?"missing-column"/}),
				],
			};
		},
	};
}

const ODD_PROFILE = /^hfx: .*profiles\/work\/state\.db: its sessions is a VIEW.*Next: /m;

/** A string is a failure (run-fault's `check`). */
const expectIn = (text: string, pattern: RegExp, what: string): string | null =>
	pattern.test(text) ? null : `${what}: ${pattern} not found in ${text.slice(0, 400)}`;

/** A home whose `work` profile's sessions is a VIEW; the default store is the incident, read as usual. */
function oddHome(
	id: string,
	outcome: Fault['outcome'],
	notes: string,
	steps: (root: string, out: string) => Step[],
): Fault {
	return {
		id,
		cls: 11,
		outcome,
		notes,
		async setup(t) {
			const h = await home(t.dir('home'));
			makeOdd(h.profileDb, 'sessions', 'view');
			return {evidence: [h.root], steps: steps(h.root, t.dir('out'))};
		},
	};
}

/** `restore --drill` of the one archive in `out` (made by the step before). */
function drillOf(out: string): Step {
	const drill: Step = {
		args: ['restore', '--drill', out],
		expect: 'ok',
		match: /^ {2}! profiles\/work\/state\.db \(work\): restored byte for byte .*its sessions is a VIEW/m,
	};
	drill.before = () => {
		drill.args[2] = path.join(out, fs.readdirSync(out).find(n => n.endsWith('.zip')) ?? 'no archive was made');
	};

	return drill;
}

export const SCHEMA_OBJECTS: Fault[] = [
	odd('schema-sessions-view', 'sessions', 'view'),
	odd('schema-sessions-without-rowid', 'sessions', 'without-rowid'),
	odd('schema-sessions-virtual', 'sessions', 'virtual'),
	odd('schema-messages-view', 'messages', 'view'),
	odd('schema-messages-without-rowid', 'messages', 'without-rowid'),
	odd('schema-messages-virtual', 'messages', 'virtual'),
	odd('schema-routing-view', 'gateway_routing', 'view'),
	odd('schema-routing-virtual', 'gateway_routing', 'virtual'),
	odd('schema-version-view', 'schema_version', 'view'),
	odd('schema-version-virtual', 'schema_version', 'virtual'),
	{
		id: 'schema-routing-without-rowid',
		cls: 11,
		outcome: 'finding',
		notes: 'a WITHOUT ROWID gateway_routing: read by its columns, no rowid needed, so read as usual',
		async setup(t) {
			const h = await home(t.dir('home'));
			makeOdd(h.db, 'gateway_routing', 'without-rowid');
			return {
				evidence: [h.root],
				steps: [finding(['scan', '--db', h.db], {match: /ROLLBACK RISK/}), verdict(['routing', '--db', h.db])],
			};
		},
	},
	missing('schema-messages-no-timestamp', 'messages', 'timestamp'),
	missing('schema-sessions-no-ended-at', 'sessions', 'ended_at'),
	missing('schema-sessions-no-chat-id', 'sessions', 'chat_id'),
	missing('schema-routing-no-entry-json', 'gateway_routing', 'entry_json'),
	oddHome(
		'schema-home-scan',
		'refused',
		'scan --home: the odd profile refused in one line, the default store reported',
		root => [
			refused(['scan', '--home', root], ODD_PROFILE, {
				check: (r: RunResult) => expectIn(r.stdout, /profile default/, "the default store's report"),
			}),
		],
	),
	oddHome(
		'schema-home-metrics',
		'finding',
		'metrics --home: the textfile is written, hfx_store_up 0 with reason ' +
			'schema-object for the odd profile, 1 for the default',
		(root, out) => [
			verdict(['metrics', '--home', root, '--textfile', path.join(out, 'hfx.prom')], {
				match: ODD_PROFILE,
				check: () => {
					const text = fs.existsSync(path.join(out, 'hfx.prom'))
						? fs.readFileSync(path.join(out, 'hfx.prom'), 'utf8')
						: '';
					return (
						expectIn(text, /hfx_store_up\{profile="work",[^}]*reason="schema-object"\} 0/, 'the odd profile down') ??
						expectIn(text, /hfx_store_up\{profile="default",[^}]*\} 1/, 'the default store up')
					);
				},
			}),
		],
	),
	oddHome(
		'schema-home-watch',
		'ok',
		'watch --home: keeps following the default store, the odd profile store-down (schema-object); stopped by SIGTERM',
		(root, out) => [
			step(
				'killed',
				['watch', '--home', root, '--interval', '1s', '--json-lines', '--textfile', path.join(out, 'hfx.prom')],
				{
					kill: {signal: 'SIGTERM', when: seen([ODD_DOWN, DEFAULT_FOLLOWED]), afterMs: 20_000},
					check: (r: RunResult) =>
						expectIn(r.stdout, ODD_DOWN, 'the odd profile down') ??
						expectIn(r.stdout, DEFAULT_FOLLOWED, 'the default store followed'),
				},
			),
		],
	),
	oddHome(
		'schema-home-drill',
		'ok',
		'backup --home then restore --drill: the drill passes and says in one line hfx cannot scan the odd profile',
		(root, out) => [ok(['backup', '--home', root, '-o', out]), drillOf(out)],
	),
];
