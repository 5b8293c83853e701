/**
 * Hermes' gateway log lines (forensics/timeline/gateway-log-lines.ts, hermes-incidents.md §6.2):
 * the lines that place restarts and rotations in time, parsed; every other line is nothing.
 */
import {describe, expect, it} from 'vitest';
import {GATEWAY_WIDE, parseLogLine} from '../../../source/forensics/timeline/gateway-log-lines.js';
import {dmKey} from '../../helpers/records.js';

const K = dmKey('42');

describe('gateway log lines (§6.2)', () => {
	it('reads the asctime parts, the level, the session tag and the key of each line worth matching', () => {
		const line = parseLogLine(
			`2026-08-09 09:40:12,345 WARNING [20260806_161836_04c1d6c6] ` +
				`gateway.session: gateway.session: routing key '${K}' -> ` +
				`20260806_161836_04c1d6c6 is ended in state.db but still live in ` +
				`sessions.json; dropping stale entry`,
		)!;
		expect(line).toMatchObject({
			kind: 'stale-entry-dropped',
			level: 'WARNING',
			logger: 'gateway.session',
			sessionKey: K,
			local: {year: 2026, month: 8, day: 9, hour: 9, minute: 40, second: 12, ms: 345},
		});
		expect(line.ids).toEqual(['20260806_161836_04c1d6c6', '20260806_161836_04c1d6c6']);
		expect(
			parseLogLine(
				`2026-08-09 09:40:12,345 WARNING gateway.session: Failed to create ` +
					`session row 20260806_161836_04c1d6c6 for ${K}: disk I/O error — ` +
					`deferring`,
			),
		).toMatchObject({kind: 'create-row-failed', sessionKey: K, ids: ['20260806_161836_04c1d6c6']});
		expect(parseLogLine('2026-08-09 09:40:12,345 INFO gateway.run: Gateway running with 2 platform(s)')?.kind).toBe(
			'gateway-up',
		);
		expect(parseLogLine('2026-08-09 09:40:12,345 INFO gateway.run: something else')).toBeNull();
		expect(parseLogLine('Starting Hermes Gateway...')).toBeNull();
	});

	it('reads a key in double quotes and the two ids of a repoint; an untagged line has its ids only', () => {
		const line = parseLogLine(
			`2026-08-09 09:40:12,345 INFO gateway.session: repointing stale sessions.json entry "${K}" ` +
				'from ended 20260806_161836_04c1d6c6 (end_reason=compression) to recovered 20260806_171836_aaaaaaaa',
		)!;
		expect(line).toMatchObject({kind: 'repoint', level: 'INFO', sessionKey: K});
		expect(line.ids).toEqual(['20260806_161836_04c1d6c6', '20260806_171836_aaaaaaaa']);
		expect(line.asctime).toBe('2026-08-09 09:40:12,345');
	});

	it('keeps a line of the right words but not the asctime format out', () => {
		expect(parseLogLine('09:40:12 WARNING gateway.session: routing save failed')).toBeNull();
		expect(parseLogLine('2026-08-09 09:40:12 WARNING gateway.session: routing save failed')).toBeNull();
		expect(parseLogLine('2026-08-09 09:40:12,345 WARNING gateway.session: routing save failed')?.kind).toBe(
			'routing-save-failed',
		);
	});

	it('says which kinds concern the whole gateway: starts, stops and a failed save, not a line naming a key', () => {
		expect(GATEWAY_WIDE.has('gateway-up')).toBe(true);
		expect(GATEWAY_WIDE.has('routing-save-failed')).toBe(true);
		expect(GATEWAY_WIDE.has('repoint')).toBe(false);
		expect(GATEWAY_WIDE.has('create-row-failed')).toBe(false);
	});
});
