/**
 * `promtool test rules` on contrib/prometheus/hfx.rules.yml (fleet tier): each alert fires once its
 * `for:` window has passed and not before, and for a rule with a window, a condition that clears
 * inside it (a stale routing entry the gateway heals on the chat's next message) does not fire.
 * The unit tests are made from the rules themselves (test/helpers/prometheus-rules.ts); the windows
 * a flapping state needs are pinned here.
 */
import {spawnSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {requireTool} from '../helpers/prometheus.js';
import {alertRules, windowMinutes, windowTests} from '../helpers/prometheus-rules.js';
import {ROOT} from '../helpers/writer.js';

const RULES = path.join(ROOT, 'contrib/prometheus/hfx.rules.yml');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hfx-promrules-'));
afterAll(() => fs.rmSync(dir, {recursive: true, force: true}));

/** `promtool test rules` on the unit tests made from the rules file, run against `loaded`. */
function promtoolTest(loaded: string, name: string): {code: number | null; output: string} {
	const tests = path.join(dir, `${name}.test.yml`);
	fs.writeFileSync(tests, windowTests(RULES, loaded));
	const r = spawnSync(requireTool('promtool'), ['test', 'rules', tests], {encoding: 'utf8', timeout: 30_000});
	return {code: r.status, output: `${r.stdout}${r.stderr}`};
}

describe("the alert rules' for: windows (promtool test rules)", () => {
	it('a state Hermes may undo within minutes waits; a fact of the store fires at once', () => {
		const windows = Object.fromEntries(alertRules(RULES).map(r => [r.alert, windowMinutes(r)]));
		expect(windows).toMatchObject({
			HfxStaleRoutingEntry: 15,
			HfxAdoptableOrphan: 5,
			HfxRefusedOrphan: 5,
			HfxRollbackRisk: 2,
			HfxStoreUnreadable: 2,
			HfxRollbackHappened: 0,
			HfxWriteHalt: 0,
			HfxRepairRoutingCrash: 0,
			HfxUpgradeRollbackRisk: 0,
		});
	});

	it(
		'every alert fires after its window and not before, and a condition that ' +
			'clears inside the window does not fire',
		() => {
			const r = promtoolTest(RULES, 'hfx');
			expect(r.output).toContain('SUCCESS');
			expect(r.code, r.output).toBe(0);
		},
	);

	it(
		'the unit tests can fail: run against the rules with the stale routing ' +
			"entry's window removed, promtool names that alert",
		() => {
			const flapping = path.join(dir, 'no-window.rules.yml');
			fs.writeFileSync(
				flapping,
				fs
					.readFileSync(RULES, 'utf8')
					.replace(/(- alert: HfxStaleRoutingEntry\n\s+expr: [^\n]+\n\s+for: )15m/, (_, head: string) => `${head}0m`),
			);
			const r = promtoolTest(flapping, 'no-window');
			expect(r.code).toBe(1);
			expect(r.output).toContain('alertname: HfxStaleRoutingEntry');
		},
	);
});
