/**
 * The samples of every store in Prometheus' text exposition format, written with prom-client (the
 * field's library) through a private Registry per call: the process-wide default registry (and its
 * default process metrics) is never touched. No I/O: the text is returned. prom-client is required
 * on first use and kept out of the bundle (scripts/bundle.mjs), so no other command parses it.
 */
import {createRequire} from 'node:module';
import type * as PromClient from 'prom-client';
import {METRICS, type MetricKey, type Sample} from './metrics-samples.js';

export const BUILD_INFO = {name: 'hfx_build_info', help: 'The hfx version that wrote these metrics (always 1)'};

const requireHere = createRequire(import.meta.url);
let prom: typeof PromClient | undefined;

export async function exposition(samples: readonly Sample[], version: string): Promise<string> {
	prom ??= requireHere('prom-client') as typeof PromClient;
	const {Gauge, Registry} = prom;
	const registry = new Registry();
	const gauges = new Map<MetricKey, PromClient.Gauge>();
	for (const [key, m] of Object.entries(METRICS) as Array<[MetricKey, (typeof METRICS)[MetricKey]]>) {
		gauges.set(key, new Gauge({name: m.name, help: m.help, labelNames: [...m.labels], registers: [registry]}));
	}

	new Gauge({name: BUILD_INFO.name, help: BUILD_INFO.help, labelNames: ['version'], registers: [registry]}).set(
		{version},
		1,
	);
	for (const s of samples) {
		gauges.get(s.metric)!.set(s.labels, s.value);
	}

	return registry.metrics();
}
