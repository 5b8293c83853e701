/**
 * The text exposition (report/metrics/prometheus-text.ts): every metric of the catalogue with its HELP and
 * TYPE gauge, the build-info series, each sample under its labels, through a private registry (the
 * process-wide default registry gains nothing).
 */
import {createRequire} from 'node:module';
import type * as PromClient from 'prom-client';
import {describe, expect, it} from 'vitest';
import {METRICS} from '../../../source/report/metrics/metric-specs.js';
import {BUILD_INFO, exposition} from '../../../source/report/metrics/prometheus-text.js';

const prom = createRequire(import.meta.url)('prom-client') as typeof PromClient;

describe('exposition', () => {
	it('declares every metric of the catalogue as a gauge with its help, and the build info at 1', async () => {
		const text = await exposition([], '1.2.3');
		for (const m of Object.values(METRICS)) {
			expect(text).toContain(`# TYPE ${m.name} gauge\n`);
			expect(text).toContain(`# HELP ${m.name} `);
		}

		expect(text).toContain(`# HELP ${BUILD_INFO.name} ${BUILD_INFO.help}\n`);
		expect(text).toContain(`${BUILD_INFO.name}{version="1.2.3"} 1\n`);
	});

	it('writes each sample under its labels, escaped as the format wants', async () => {
		const text = await exposition(
			[
				{metric: 'up', labels: {profile: 'default'}, value: 1},
				{metric: 'walBytes', labels: {profile: 'work "x"'}, value: 4096},
				{metric: 'verifiedAge', labels: {profile: 'default'}, value: Number.POSITIVE_INFINITY},
			],
			'0.0.1',
		);
		expect(text).toContain(`${METRICS.up.name}{profile="default"} 1\n`);
		expect(text).toContain(`${METRICS.walBytes.name}{profile="work \\"x\\""} 4096\n`);
		expect(text).toContain(`${METRICS.verifiedAge.name}{profile="default"} +Inf\n`);
	});

	it('leaves the default registry untouched, and a second call starts afresh', async () => {
		const before = await prom.register.metrics();
		await exposition([{metric: 'up', labels: {profile: 'a'}, value: 0}], 'v');
		const again = await exposition([{metric: 'up', labels: {profile: 'b'}, value: 1}], 'v');
		expect(await prom.register.metrics()).toBe(before);
		expect(again).toContain(`${METRICS.up.name}{profile="b"} 1`);
		expect(again).not.toContain('profile="a"');
	});
});
