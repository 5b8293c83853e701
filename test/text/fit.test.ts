/**
 * Fitting a line without cutting an id in half (source/text/fit.ts): session ids whole or left
 * out, session keys shortened keeping platform, chat type and chat tail, wrapping at spaces.
 */
import {describe, expect, it} from 'vitest';
import {SESSION_ID, cutKeepingIds, shortKey, shortPath, wrapLine} from '../../source/text/fit.js';

const ID = /\d{8}_\d{6}_[0-9a-f]{8}/;
const BANNER =
	' ✗ ROLLBACK RISK 2 chats: agent:main:discord:group:9001 would resume ' +
	'20260808_001820_8719394d, newest message is in 20260808_052508_14665640 ' +
	'· 4 Routing';

/** Every id-looking run in a line is a whole id (8 hex digits after the time). */
function idsWhole(line: string): boolean {
	return [...line.matchAll(/\d{8}_\d{6}_[0-9a-f]*|\d{4,8}_\d{0,6}…/g)].every(m => ID.test(m[0]) && m[0].length === 24);
}

describe('cutKeepingIds', () => {
	it('leaves a line that fits as it is', () => {
		expect(cutKeepingIds('hello 20260808_001820_8719394d', 40)).toBe('hello 20260808_001820_8719394d');
	});

	it.each([100, 90, 80, 70, 60, 50, 40, 30])('never splits a session id at width %i', width => {
		const line = cutKeepingIds(BANNER, width);
		expect(line.length).toBeLessThanOrEqual(width);
		expect(line.endsWith('…')).toBe(true);
		expect(idsWhole(line), line).toBe(true);
	});

	it('drops an id the cut would split, keeping what came before it', () => {
		expect(cutKeepingIds('resumes 20260808_001820_8719394d now', 20)).toBe('resumes…');
	});

	it('shortens a session key the cut would split, keeping its platform and chat tail', () => {
		const line = cutKeepingIds(
			'! orphan 20260807_052242_427c496c (798 messages) adoptable into agent:main:telegram:dm:777001 and more',
			78,
		);
		// Not room enough for the platform and four digits of the chat, then an ellipsis: left out.
		expect(line).toBe('! orphan 20260807_052242_427c496c (798 messages) adoptable into…');
		// At the end of the line the key needs no ellipsis after it: the platform and the chat tail fit.
		expect(
			cutKeepingIds(
				'! orphan 20260807_052242_427c496c (798 messages) adoptable into agent:main:telegram:dm:777001',
				78,
			),
		).toBe('! orphan 20260807_052242_427c496c (798 messages) adoptable into telegram:…7001');
		expect(cutKeepingIds('resumes agent:main:telegram:dm:777001 now', 14)).toBe('resumes…');
		const tighter = cutKeepingIds('adoptable into agent:main:telegram:dm:1234567890 from x', 36);
		expect(tighter).toBe('adoptable into …telegram:dm:…567890…');
		expect(tighter.length).toBeLessThanOrEqual(40);
	});
});

describe('shortKey', () => {
	const key = 'agent:main:telegram:dm:1234560042';

	it('keeps a key that fits whole', () => {
		expect(shortKey(key, key.length)).toBe(key);
	});

	it('keeps the agent, platform, chat type and the tail of the chat id', () => {
		expect(shortKey(key, 28)).toBe('agent:main:telegram:dm:…0042');
		expect(shortKey(key, 28)!.length).toBe(28);
	});

	it('drops the agent part when there is less room, then gives up', () => {
		expect(shortKey(key, 18)).toBe('…telegram:dm:…0042');
		expect(shortKey(key, 23)).toBe('…telegram:dm:1234560042');
		expect(shortKey(key, 17)).toBe('telegram:…4560042');
		expect(shortKey(key, 14)).toBe('telegram:…0042');
		expect(shortKey(key, 10)).toBeNull();
		// The platform alone never passes for a key of its own: the chat type dropped is marked.
		expect(shortKey('agent:main:discord:group:9001', 14)).toBe('discord:…9001');
	});
});

describe('wrapLine', () => {
	it('wraps at spaces with every id on one line, each line within the width', () => {
		for (const width of [30, 40, 60]) {
			const lines = wrapLine(BANNER, width);
			expect(lines.length).toBeGreaterThan(1);
			expect(lines.every(l => l.length <= width)).toBe(true);
			expect(lines.join(' ').match(SESSION_ID)).toEqual(['20260808_001820_8719394d', '20260808_052508_14665640']);
			expect(lines.slice(1).every(l => l.startsWith('  '))).toBe(true);
		}
	});

	it('keeps a line that fits as one', () => {
		expect(wrapLine('short line', 20)).toEqual(['short line']);
	});

	it('splits a word longer than the width', () => {
		expect(wrapLine(`x ${'a'.repeat(25)}`, 10)).toEqual(['x', '  aaaaaaaa', '  aaaaaaaa', '  aaaaaaaa', '  a']);
	});
});

describe('shortPath', () => {
	const p = '/home/operator/.hermes/profiles/work/state.db';
	it('keeps a path that fits whole', () => {
		expect(shortPath(p, p.length)).toBe(p);
	});

	it('keeps the end, from a folder boundary, after a leading …, in at most the width asked', () => {
		for (let max = 2; max < p.length; max++) {
			const short = shortPath(p, max);
			expect(short.length, String(max)).toBeLessThanOrEqual(max);
			expect(short.startsWith('…'), String(max)).toBe(true);
			expect(p.endsWith(short.slice(1)), String(max)).toBe(true);
		}

		expect(shortPath(p, 24)).toBe('…/profiles/work/state.db');
		expect(shortPath(p, 20)).toBe('…/work/state.db');
	});

	it('nothing when not even the ellipsis fits', () => {
		expect(shortPath(p, 0)).toBe('');
	});
});
