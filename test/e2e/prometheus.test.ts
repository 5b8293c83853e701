/**
 * hfx against the real engine: `promtool check rules` on contrib/prometheus/hfx.rules.yml, and the
 * whole path on loopback: the demo gateway writes its store, `hfx watch` keeps a textfile, a real
 * node_exporter (textfile collector only) exposes it, a real Prometheus scrapes it every second and
 * evaluates the rules (their for: windows set to 0m; prometheus-rules.test.ts checks the windows with
 * promtool test rules). Once the incident happens the rollback-risk alert fires (its runbook names
 * the next hfx command); the operator stops the gateway and the watch, applies `hfx repair --apply
 * --yes`, starts the watch again, and the alert resolves. On a store a restart already rolled back
 * (the v21 incident, post-restart), the rollback-happened alert fires, and resolves once adopted.
 * On a root whose stores hold every kind of finding (test/helpers/findings-root.ts: the generations
 * fixture's `ops` store among them, whose own repair-routing crashes and which an upgrade would put
 * at rollback risk), the alert of every kind fires, each with its summary, description and
 * runbook_url, and every query of the Grafana dashboard evaluates to series. Bounded (≤ ~90 s each), every process
 * stopped
 * at the end, pass or fail. A missing tool fails the test with how to get it (.ci/run).
 */
import {type ChildProcess, spawn} from 'node:child_process';
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {type RunningDemo, startDemoGateway} from '../../source/commands/demo.js';
import {FINDING_SIGNALS, type FindingKind} from '../../source/report/metrics/finding-signals.js';
import {hfx} from '../helpers/cli.js';
import {findingKinds} from '../helpers/finding-kinds.js';
import {findingsRoot} from '../helpers/findings-root.js';
import {dashboardQueries, withAllProfiles} from '../helpers/grafana.js';
import {
	INCIDENT_CHAT,
	INCIDENT_ORPHAN,
	INCIDENT_ZOMBIE,
	incidentWriter,
	postRestartIncident,
} from '../helpers/post-restart.js';
import {promtoolCheckMetrics, requireTool} from '../helpers/prometheus.js';
import {withoutWindows} from '../helpers/prometheus-rules.js';
import {WatchProcess} from '../helpers/watch-process.js';
import {ROOT} from '../helpers/writer.js';

const RULES = path.join(ROOT, 'contrib/prometheus/hfx.rules.yml');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-prom-'));
const started: ChildProcess[] = [];
const watches: WatchProcess[] = [];
let demo: RunningDemo | null = null;

afterAll(async () => {
	await demo?.stop();
	for (const w of watches) {
		await w.stop('SIGKILL');
	}

	for (const child of started) {
		if (child.exitCode === null && child.signalCode === null) {
			const gone = new Promise(resolve => child.once('exit', resolve));
			child.kill('SIGKILL');
			await gone;
		}
	}

	fs.rmSync(dir, {recursive: true, force: true});
}, 30_000);

/** A free loopback port (the kernel's choice; released just before the server binds it). */
async function freePort(): Promise<number> {
	const server = net.createServer();
	await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
	const {port} = server.address() as net.AddressInfo;
	await new Promise(resolve => server.close(resolve));
	return port;
}

function start(command: string, args: string[]): ChildProcess & {output: () => string} {
	const child = spawn(command, args, {stdio: ['ignore', 'pipe', 'pipe']});
	let output = '';
	child.stdout!.on('data', (d: Buffer) => {
		output = (output + d.toString()).slice(-4000);
	});
	child.stderr!.on('data', (d: Buffer) => {
		output = (output + d.toString()).slice(-4000);
	});
	started.push(child);
	return Object.assign(child, {output: () => output});
}

async function until<T>(
	what: string,
	ms: number,
	probe: () => Promise<T | undefined>,
	context: () => string,
): Promise<T> {
	const deadline = Date.now() + ms;
	for (;;) {
		const value = await probe().catch(() => undefined);
		if (value !== undefined) {
			return value;
		}

		if (Date.now() > deadline) {
			throw new Error(`${what}: not within ${ms} ms. ${context()}`);
		}

		await new Promise(resolve => setTimeout(resolve, 250));
	}
}

type Alert = {labels: Record<string, string>; annotations: Record<string, string>; state: string};

async function alerts(port: number): Promise<Alert[]> {
	const r = await fetch(`http://127.0.0.1:${port}/api/v1/alerts`);
	const body = (await r.json()) as {status: string; data: {alerts: Alert[]}};
	return body.data.alerts;
}

/**
 * A real node_exporter (textfile collector only) on `<dir>/<tag>/textfile` and a real Prometheus scraping it every
 * second with the rules.
 */
async function startPrometheus(tag: string): Promise<{textDir: string; prometheusPort: number; logs: () => string}> {
	const [exporterBin, prometheusBin] = [requireTool('prometheus-node-exporter'), requireTool('prometheus')];
	const textDir = path.join(dir, tag, 'textfile');
	fs.mkdirSync(textDir, {recursive: true});
	const [exporterPort, prometheusPort] = [await freePort(), await freePort()];
	const exporter = start(exporterBin, [
		`--web.listen-address=127.0.0.1:${exporterPort}`,
		'--collector.disable-defaults',
		'--collector.textfile',
		`--collector.textfile.directory=${textDir}`,
		'--log.level=warn',
	]);
	const config = path.join(dir, tag, 'prometheus.yml');
	// The rules with their for: windows at 0m, so an alert fires within seconds here; the windows are
	// checked by promtool test rules (prometheus-rules.test.ts).
	const rules = withoutWindows(RULES, path.join(dir, tag, 'hfx.rules.yml'));
	fs.writeFileSync(
		config,
		`global:\n  scrape_interval: 1s\n  evaluation_interval: ` +
			`1s\nrule_files:\n  - ${JSON.stringify(rules)}\nscrape_configs:\n  - ` +
			`job_name: hfx\n    static_configs:\n      - targets: ` +
			`['127.0.0.1:${exporterPort}']\n`,
	);
	const prometheus = start(prometheusBin, [
		`--config.file=${config}`,
		`--storage.tsdb.path=${path.join(dir, tag, 'tsdb')}`,
		`--web.listen-address=127.0.0.1:${prometheusPort}`,
		'--log.level=warn',
	]);
	return {
		textDir,
		prometheusPort,
		logs: () => `node_exporter: ${exporter.output()} prometheus: ${prometheus.output()}`,
	};
}

describe('Prometheus end to end', () => {
	it('promtool accepts the alert rules', () => {
		const r = spawnSync(requireTool('promtool'), ['check', 'rules', RULES], {encoding: 'utf8', timeout: 20_000});
		expect(r.stdout + r.stderr).toContain('SUCCESS: 22 rules found');
		expect(r.status).toBe(0);
	});

	it(
		'promtool accepts what hfx metrics writes, on stdout and as a textfile, ' +
			'with every gauge a rolled-back store sets',
		async () => {
			const home = path.join(dir, 'promtool');
			await postRestartIncident(home);
			const printed = hfx(['metrics', '--home', home]);
			expect(printed.stdout).toMatch(/^hfx_rollback_happened_chats\{[^}]*\} 1$/m);
			const file = path.join(dir, 'promtool-out', 'hfx.prom');
			fs.mkdirSync(path.dirname(file), {recursive: true});
			const written = hfx(['metrics', '--home', home, '--textfile', file]);
			expect(written.stderr).toBe('');
			for (const text of [`${printed.stdout}\n`, fs.readFileSync(file, 'utf8')]) {
				const checked = promtoolCheckMetrics(text);
				expect(checked.output).toBe('');
				expect(checked.code).toBe(0);
			}

			// The checker is real: a malformed line is refused.
			expect(promtoolCheckMetrics('hfx_sessions{profile="default" 1\n').code).not.toBe(0);
		},
	);

	it("fires the rollback-risk alert once the demo's incident happens, and " +
		'resolves it after hfx repair --apply', async () => {
		const {textDir, prometheusPort, logs} = await startPrometheus('risk');

		// The demo at 10x: the incident about 6 s in. Without its restart: this is the runbook before
		// any restart (the alert says "do not restart"), and a restart would make the rollback happen.
		demo = await startDemoGateway({speed: 10, home: path.join(dir, 'home'), restartAt: 'never'});
		const textfile = path.join(textDir, 'hfx.prom');
		const watchArgs = ['--home', demo.home, '--interval', '0.5s', '--json-lines', '--textfile', textfile];
		const first = new WatchProcess(watchArgs);
		watches.push(first);
		await until(
			'Prometheus ready',
			20_000,
			async () => ((await fetch(`http://127.0.0.1:${prometheusPort}/-/ready`)).ok ? true : undefined),
			logs,
		);
		const firing = await until(
			'HfxRollbackRisk firing',
			40_000,
			async () =>
				(await alerts(prometheusPort)).find(a => a.labels.alertname === 'HfxRollbackRisk' && a.state === 'firing'),
			() => `${logs()} watch: ${first.lines.slice(-5).join('\n')}`,
		);
		expect(firing.labels).toMatchObject({profile: 'default', severity: 'critical'});
		expect(firing.labels).not.toHaveProperty('schema');
		expect(firing.annotations.description).toContain('hfx repair --profile default --apply');
		expect(firing.annotations.runbook_url).toBe('https://example.invalid/hfx/README.md#hfxrollbackrisk');
		await first.waitForEach([{event: 'rollback-risk-raised'}], 5000);

		// The repair, as the runbook says: the gateway and the watch stopped (a repair refuses while anything holds the
		// store).
		await demo.stop();
		expect((await first.stop('SIGTERM')).code).toBe(0);
		const repair = hfx(['repair', '--home', demo.home, '--apply', '--yes']);
		expect(repair.stderr).toBe('');
		expect(repair.code).toBe(0);
		const second = new WatchProcess(watchArgs);
		watches.push(second);
		await until(
			'HfxRollbackRisk resolved',
			30_000,
			async () =>
				(await alerts(prometheusPort)).some(a => a.labels.alertname === 'HfxRollbackRisk') ? undefined : true,
			logs,
		);
		expect((await alerts(prometheusPort)).filter(a => a.labels.alertname === 'HfxAdoptableOrphan')).toEqual([]);
		expect((await second.stop('SIGTERM')).code).toBe(0);
	}, 90_000);

	it('fires the rollback-happened alert on a store a restart already rolled ' +
		'back (critical; the runbook names the adoption preview), and resolves ' +
		'it once the stranded row is adopted', async () => {
		const {textDir, prometheusPort, logs} = await startPrometheus('happened');
		const home = path.join(dir, 'happened', 'home');
		const db = await postRestartIncident(home);
		const textfile = path.join(textDir, 'hfx.prom');
		const metrics = () => hfx(['metrics', '--home', home, '--textfile', textfile]);
		expect(metrics()).toMatchObject({code: 0, stderr: ''});
		await until(
			'Prometheus ready',
			20_000,
			async () => ((await fetch(`http://127.0.0.1:${prometheusPort}/-/ready`)).ok ? true : undefined),
			logs,
		);
		const firing = await until(
			'HfxRollbackHappened firing',
			30_000,
			async () =>
				(await alerts(prometheusPort)).find(a => a.labels.alertname === 'HfxRollbackHappened' && a.state === 'firing'),
			logs,
		);
		expect(firing.labels).toMatchObject({profile: 'default', severity: 'critical'});
		expect(firing.annotations.summary).toContain('already rolled 1 chat(s) of profile default back');
		expect(firing.annotations.description).toContain('hfx repair --profile default --only STRANDED --donor RESUMED');
		expect(firing.annotations.description).not.toMatch(/do not restart/i);

		// What an adoption writes (a second process), then the next reading: the alert resolves.
		const writer = await incidentWriter(db);
		await writer.send({
			op: 'exec',
			sql:
				`UPDATE sessions SET session_key = '${INCIDENT_CHAT}', user_id = ` +
				`'u-teknium', chat_id = '777001', chat_type = 'dm' WHERE id = ` +
				`'${INCIDENT_ORPHAN}'; UPDATE sessions SET ended_at = 1786483000, ` +
				`end_reason = 'superseded_by_repair' WHERE id = '${INCIDENT_ZOMBIE}'`,
		});
		await writer.send({op: 'close'}).catch(() => undefined);
		await writer.kill();
		expect(metrics()).toMatchObject({code: 0, stderr: ''});
		await until(
			'HfxRollbackHappened resolved',
			30_000,
			async () =>
				(await alerts(prometheusPort)).some(a => a.labels.alertname === 'HfxRollbackHappened') ? undefined : true,
			logs,
		);
	}, 90_000);

	it('fires the alert of every finding kind on a root holding them all (ops: ' +
		'repair-routing crash, rollback risk after an upgrade), and evaluates ' +
		'every query of the Grafana dashboard', async () => {
		const {textDir, prometheusPort, logs} = await startPrometheus('findings');
		const root = await findingsRoot(path.join(dir, 'findings', 'root'));
		expect(hfx(['metrics', '--home', root, '--textfile', path.join(textDir, 'hfx.prom')])).toMatchObject({
			code: 0,
			stderr: '',
		});
		await until(
			'Prometheus ready',
			20_000,
			async () => ((await fetch(`http://127.0.0.1:${prometheusPort}/-/ready`)).ok ? true : undefined),
			logs,
		);
		const expected = [
			...new Set(
				findingKinds().flatMap(kind => [
					FINDING_SIGNALS[kind as FindingKind]?.alert ?? `(no alert for ${kind})`,
					...(FINDING_SIGNALS[kind as FindingKind]?.graver ? [FINDING_SIGNALS[kind as FindingKind].graver!.alert] : []),
				]),
			),
		];
		let seen: string[] = [];
		const firing = await until(
			"every finding kind's alert firing",
			40_000,
			async () => {
				const now = (await alerts(prometheusPort)).filter(a => a.state === 'firing');
				seen = [...new Set(now.map(a => a.labels.alertname!))];
				return expected.every(name => seen.includes(name)) ? now : undefined;
			},
			() => `${logs()} missing: ${expected.filter(name => !seen.includes(name)).join(', ')}`,
		);
		for (const a of firing.filter(x => expected.includes(x.labels.alertname!))) {
			expect(Object.keys(a.annotations).sort(), a.labels.alertname).toEqual(['description', 'runbook_url', 'summary']);
			expect(a.labels).not.toHaveProperty('schema');
		}

		const crash = firing.filter(a => a.labels.alertname === 'HfxRepairRoutingCrash');
		expect(crash.map(a => a.labels.profile)).toEqual(['ops']);
		expect(crash[0]!.annotations.description).toContain('hfx scan --profile ops');
		const upgrade = firing.filter(a => a.labels.alertname === 'HfxUpgradeRollbackRisk');
		expect(upgrade.map(a => [a.labels.profile, a.labels.severity])).toEqual([['ops', 'warning']]);
		expect(upgrade[0]!.annotations.summary).toContain(
			'upgrading Hermes would put 1 chat(s) of profile ops at rollback risk',
		);

		// The dashboard's queries as Grafana sends them ("All" profiles): each evaluates, to series
		// (but the backup ages, which are +Inf here: no backup exists).
		const query = async (expr: string) =>
			(await (
				await fetch(`http://127.0.0.1:${prometheusPort}/api/v1/query?query=${encodeURIComponent(expr)}`)
			).json()) as {status: string; error?: string; data: {result: unknown[]}};
		const {panels} = dashboardQueries();
		const results = await Promise.all(panels.map(async expr => ({expr, r: await query(withAllProfiles(expr))})));
		expect(results.filter(({r}) => r.status !== 'success').map(({expr, r}) => `${expr}: ${r.error}`)).toEqual([]);
		expect(
			results.filter(({expr, r}) => r.data.result.length === 0 && !expr.includes('< +Inf')).map(({expr}) => expr),
		).toEqual([]);
		const profiles = (await (
			await fetch(`http://127.0.0.1:${prometheusPort}/api/v1/label/profile/values?match[]=hfx_store_info`)
		).json()) as {data: string[]};
		expect(profiles.data.sort()).toEqual(['columnless', 'default', 'halted', 'ops', 'rolled', 'signatures', 'work']);
		// The README's join: the versions come from hfx_store_info.
		const joined = await query(
			'hfx_upgrade_rollback_risk_chats * on (instance, profile) group_left ' +
				'(schema, rule_set, build) hfx_store_info > 0',
		);
		expect(joined.data.result).toEqual([
			expect.objectContaining({
				metric: expect.objectContaining({profile: 'ops', schema: 'v25', rule_set: 'v25', build: 'unknown'}),
			}),
		]);
	}, 120_000);
});
