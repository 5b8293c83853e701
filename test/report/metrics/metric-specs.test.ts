/**
 * The catalogue of metrics (report/metrics/metric-specs.ts): names by Prometheus' conventions and unique,
 * each with HELP text, every one labelled by the profile first, and the store's versions labels of
 * `hfx_store_info` alone.
 */
import {describe, expect, it} from 'vitest';
import {METRICS, STORE_LABELS} from '../../../source/report/metrics/metric-specs.js';

const specs = Object.values(METRICS);

describe('METRICS', () => {
	it('names each metric hfx_ in snake case, once, with HELP text', () => {
		for (const m of specs) {
			expect(m.name).toMatch(/^hfx_[a-z][a-z0-9_]*[a-z0-9]$/);
			expect(m.help.length, m.name).toBeGreaterThan(10);
		}

		expect(new Set(specs.map(m => m.name)).size).toBe(specs.length);
	});

	it('labels every metric by the profile first; sizes in bytes and ages in seconds say so', () => {
		expect(STORE_LABELS).toEqual(['profile']);
		for (const m of specs) {
			expect(m.labels[0], m.name).toBe('profile');
		}

		expect(METRICS.walBytes.name).toMatch(/_bytes$/);
		expect(METRICS.verifiedAge.name).toMatch(/_seconds$/);
		expect(METRICS.drilledAge.name).toMatch(/_seconds$/);
		expect(METRICS.scanDuration.name).toMatch(/_seconds$/);
	});

	it('puts the schema, rule set and build on hfx_store_info alone', () => {
		expect(METRICS.info).toMatchObject({name: 'hfx_store_info', labels: ['profile', 'schema', 'rule_set', 'build']});
		for (const m of specs.filter(s => s !== METRICS.info)) {
			expect(m.labels, m.name).not.toContain('schema');
			expect(m.labels, m.name).not.toContain('rule_set');
			expect(m.labels, m.name).not.toContain('build');
		}
	});
});
