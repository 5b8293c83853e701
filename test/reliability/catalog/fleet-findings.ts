/**
 * Issue #27 point 4 under faults: the fleet sees every finding. Class 9 (what already holds): on
 * the real-Hermes generations root, `hfx metrics` says the `ops` store's repair-routing crash and
 * its rollback risk after an upgrade, and `hfx watch` says both as events; the container's own
 * command line on a read-only bind mount of the root (root only) reads every store and writes
 * only its textfile. Class 3 (hangs): a FIFO planted as `gateway_state.json` does not hang the
 * build label's read. Class 8 (injection): a running gateway's `gateway_state.json` whose
 * `code_version`/`code_sha` carry escapes, quotes and newlines is no build (label `unknown`).
 * 0 evidence bytes changed in each.
 */
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {ROOT} from '../../helpers/writer.js';
import type {Fault, RunResult, Step} from '../types.js';
import {ok, seen, step} from './kit.js';

const CRASH_EVENT =
	/^\{"event":"repair-routing-crash",[^\n]*"subject":"20260902_090000_f39e1362"[^\n]*"profile":"ops"/m;
const UPGRADE_EVENT = /^\{"event":"after-upgrade",[^\n]*"subject":"agent:ops:telegram:dm:7100"[^\n]*ROLLBACK RISK/m;

const GENERATIONS = path.join(ROOT, 'test/fixtures/hermes-generations/root');

const expectIn = (text: string, pattern: RegExp, what: string): string | null =>
	pattern.test(text) ? null : `${what}: ${pattern} not found in ${text.slice(0, 400)}`;

const textOf = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');

/** The two findings of ops the fleet was blind to. */
const opsFindings = (text: string) =>
	expectIn(text, /^hfx_repair_routing_crash\{profile="ops"\} 1$/m, 'the repair-routing crash') ??
	expectIn(text, /^hfx_upgrade_rollback_risk_chats\{profile="ops"\} 1$/m, 'the rollback risk after an upgrade');

function generations(
	id: string,
	cls: Fault['cls'],
	notes: string,
	steps: (root: string, out: string) => Step[],
	plant?: (root: string) => void,
): Fault {
	return {
		id,
		cls,
		outcome: 'ok',
		notes,
		setup(t) {
			const root = t.dir('home');
			fs.cpSync(GENERATIONS, root, {recursive: true});
			plant?.(root);
			return {evidence: [root], steps: steps(root, t.dir('out'))};
		},
	};
}

/** Start ticks of this process (field 22 of /proc/self/stat): a gateway_state.json naming a process that runs. */
function ownStartTicks(): number {
	const stat = fs.readFileSync('/proc/self/stat', 'utf8');
	return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

const metricsTo = (root: string, out: string, check: (text: string) => string | null): Step =>
	ok(['metrics', '--home', root, '--textfile', path.join(out, 'hfx.prom')], {
		check: () => check(textOf(path.join(out, 'hfx.prom'))),
	});

export const FLEET_FINDINGS: Fault[] = [
	generations(
		'fleet-findings-metrics',
		9,
		"metrics --home on the generations root: ops' repair-routing crash and " +
			'its rollback risk after an upgrade in the textfile; versions on ' +
			'hfx_store_info alone',
		(root, out) => [
			metricsTo(
				root,
				out,
				text =>
					opsFindings(text) ??
					expectIn(
						text,
						/^hfx_store_info\{profile="ops",schema="v25",rule_set="v25",build="unknown"\} 1$/m,
						'the store info',
					) ??
					(/^hfx_(?!store_info)[a-z_]+\{[^}]*\bschema=/m.test(text)
						? 'a series other than hfx_store_info carries schema'
						: null),
			),
		],
	),
	generations(
		'fleet-findings-watch',
		9,
		'watch --home on the generations root: repair-routing-crash and after-upgrade events for ops; stopped by SIGTERM',
		root => [
			step('killed', ['watch', '--home', root, '--interval', '1s', '--json-lines'], {
				kill: {signal: 'SIGTERM', when: seen([CRASH_EVENT, UPGRADE_EVENT]), afterMs: 20_000},
				check: (r: RunResult) =>
					expectIn(r.stdout, CRASH_EVENT, 'the crash event') ??
					expectIn(r.stdout, UPGRADE_EVENT, 'the after-upgrade event'),
			}),
		],
	),
	generations(
		'fleet-gateway-state-fifo',
		3,
		"a FIFO as the root's gateway_state.json: metrics reads past it (no hang), build unknown",
		(root, out) => [
			metricsTo(root, out, text =>
				expectIn(text, /^hfx_store_info\{profile="default",[^}]*build="unknown"\} 1$/m, 'build unknown'),
			),
		],
		root => execFileSync('mkfifo', [path.join(root, 'gateway_state.json')]),
	),
	generations(
		'fleet-gateway-state-hostile',
		8,
		"a running gateway's gateway_state.json whose code_version and code_sha " +
			'carry ESC, quotes and newlines: no build is said, the label stays plain',
		(root, out) => [
			metricsTo(
				root,
				out,
				text =>
					expectIn(text, /^hfx_store_info\{profile="default",[^}]*build="unknown"\} 1$/m, 'build unknown') ??
					(text.includes('\u001b') || text.includes('\\"') ? 'an escape or a quote reached the textfile' : null),
			),
		],
		root =>
			fs.writeFileSync(
				path.join(root, 'gateway_state.json'),
				JSON.stringify({
					pid: process.pid,
					start_time: ownStartTicks(),
					gateway_state: 'running',
					code_version: '0.21\u001b[2J"}\n4',
					code_sha: 'abc\u001b]0;x\u0007"',
				}),
			),
	),
	{
		id: 'fleet-container-readonly',
		cls: 9,
		outcome: 'ok',
		needs: ['root'],
		notes:
			"the container's command line (contrib/docker) on a read-only bind mount " +
			"of the generations root: every store read, ops' findings in the " +
			'textfile, nothing written beside a store',
		setup(t) {
			const root = t.dir('home');
			fs.cpSync(GENERATIONS, root, {recursive: true});
			const hermes = t.dir('hermes');
			execFileSync('mount', ['--bind', root, hermes]);
			t.onCleanup(() => {
				execFileSync('umount', [hermes]);
			});
			execFileSync('mount', ['-o', 'remount,ro,bind', hermes]);
			const out = t.dir('textfile');
			const cmd = JSON.parse(
				/^CMD (.*)$/m.exec(fs.readFileSync(path.join(ROOT, 'contrib/docker/Dockerfile'), 'utf8'))![1]!,
			) as string[];
			const args = cmd.map(a => a.replace(/^\/hermes$/, hermes).replace(/^\/textfile\//, `${out}/`));
			const file = path.join(out, 'hfx.prom');
			return {
				evidence: [root],
				steps: [
					step('killed', args, {
						kill: {signal: 'SIGTERM', when: () => fs.existsSync(file), afterMs: 20_000},
						check: () =>
							opsFindings(textOf(file)) ??
							expectIn(textOf(file), /^hfx_store_up\{profile="work",reason=""\} 1$/m, 'work read'),
					}),
				],
			};
		},
	},
];
