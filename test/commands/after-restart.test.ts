/**
 * After the restart (issue #23): stores moved to their post-restart state by a second process, as
 * the gateway writes it (hermes-incidents.md §1.1), from the real-Hermes fixtures and from the
 * simulator. hfx must name the rollback that already happened, offer the resumed row as the
 * skipped conversation's donor, and stay silent on the stores that only look alike.
 */
import {describe, expect, it} from 'vitest';
import {evidenceState, hfx, hfxJson, hfxOnTerminal} from '../helpers/cli.js';
import {
	SIM_KEY,
	generationsIncidentAfterRestart,
	legacySiblingAfterRestart,
	simulatedCompressionRotation,
	simulatedIncident,
	simulatedResetNew,
	simulatedResetPromotion,
	simulatedSpoolReplay,
	useBuilt,
	v21IncidentAfterRestart,
} from '../helpers/post-restart.js';

type Json = {
	summary: {rolledBack: number; healthy: boolean};
	rollbacks: any[];
	findings: Array<{kind: string; subject: string}>;
	orphans: any[];
};

function scan(db: string): {code: number | null; json: Json} {
	return hfxJson<Json>(['scan', '--db', db]);
}

describe.each([
	['the real v21 incident store', v21IncidentAfterRestart, 798],
	['the real v25 generations root', generationsIncidentAfterRestart, 40],
] as const)('%s, after the gateway resumed its zombie and wrote two turns', (_name, build, messages) => {
	const store = useBuilt(build);

	it('is a rollback that already happened, named first, with the skipped row and the turns since', () => {
		const {current: s} = store;
		const before = evidenceState(s.dir);
		const {code, json} = scan(s.db);
		expect(code).toBe(1);
		expect(json.findings[0]).toMatchObject({kind: 'rollback-happened', subject: s.sessionKey});
		const [r] = json.rollbacks;
		expect(r).toMatchObject({
			sessionKey: s.sessionKey,
			resumedId: s.zombie,
			routedTo: s.zombie,
			certainty: 'strong',
			after: {messages: 4, userTurns: 2},
		});
		expect(r.skipped).toMatchObject({id: s.orphan, kind: 'keyless', messages});
		expect(r.resumedAt).toBeGreaterThanOrEqual(s.restartAt!);
		expect(r.routingRewriteAt === null || r.routingRewriteAt === s.restartAt).toBe(true);
		expect(evidenceState(s.dir)).toEqual(before);
	});

	it("offers the resumed row as the candidate donor, in scan's words and in the adoption preview", () => {
		const {current: s} = store;
		const text = hfx(['scan', '--db', s.db]).stdout;
		expect(text).toMatch(/✗ ROLLED BACK {2}agent:main:telegram:dm:\d+ {2}\(already happened; strong\)/);
		expect(text).toContain(`candidate donor ${s.zombie}`);
		const orphan = s.orphan.slice(-8);
		const preview = hfx(['repair', '--db', s.db, '--only', orphan, '--donor', s.zombie.slice(-8)]);
		// 1: the store's other orphans stay refused.
		expect(preview.code, preview.stderr).toBe(1);
		expect(preview.stdout).toContain(`after ${s.orphan} (the conversation the restart skipped)`);
		expect(preview.stdout).toMatch(
			/the gateway wrote 2 user turns \(4 messages, [^)]+\) into \S+: they stay there, out of the resumed context/,
		);
		expect(preview.stdout).toContain(`hermes sessions export --session-id ${s.zombie}`);
		expect(preview.stdout).not.toContain('still at risk');
	});

	it('hfx routing of the chat says it rolled back, never ✓, and exits 1', () => {
		const {current: s} = store;
		const r = hfx(['routing', s.sessionKey, '--db', s.db]);
		expect(r.code, r.stderr).toBe(1);
		expect(r.stdout).toMatch(new RegExp(`^✗ ROLLED BACK(?: · ROLLBACK RISK)? {2}${s.sessionKey}$`, 'm'));
		expect(r.stdout).not.toMatch(new RegExp(`^✓ {2}${s.sessionKey}$`, 'm'));
		expect(r.stdout).toContain(`skipped            ${s.orphan}`);
		const {json} = hfxJson(['routing', s.sessionKey, '--db', s.db]);
		expect(json.rollbacks).toEqual([expect.objectContaining({sessionKey: s.sessionKey, resumedId: s.zombie})]);
	});

	it('has a readable timeline: the rows, the fork, the resume, in time order, every line within 80 columns', () => {
		const {current: s} = store;
		const t = hfx(['timeline', s.sessionKey, '--db', s.db]);
		expect(t.code, t.stderr).toBe(1);
		expect(t.stdout).toMatch(/! ROLLED BACK: the chat resumed \w{8}, a context [\d.]+ days old/);
		const fork = t.stdout.search(/ FORK {5}keyless /);
		const resume = t.stdout.search(/ RESUME {3}ROLLED BACK/);
		expect(fork).toBeGreaterThan(0);
		expect(resume).toBeGreaterThan(fork);
		expect(t.stdout.split('\n').filter(l => l.length > 80)).toEqual([]);
		const {json} = hfxJson(['timeline', s.sessionKey, '--db', s.db]);
		expect(JSON.stringify(json)).toContain(s.orphan);
	});
});

describe('the adoption of what a rollback skipped, applied and undone', () => {
	const store = useBuilt(v21IncidentAfterRestart);

	it("asks the operator's typed choice, adopts, settles the finding, and undoes", () => {
		const {current: s} = store;
		const [o, k] = [s.orphan.slice(-8), s.zombie.slice(-8)];
		const applied = hfxOnTerminal(['repair', '--apply', '--db', s.db, '--only', o, '--donor', k], `${o} ${k}`);
		expect(applied.code, applied.out).toBe(1);
		expect(applied.out).toContain(`✓ ${s.orphan} now owns ${s.sessionKey}; a restart resumes ${s.orphan}`);
		const after = scan(s.db).json;
		expect(after.rollbacks).toEqual([]);
		expect(after.orphans.map(x => x.orphanId)).not.toContain(s.orphan);
		const entry = /undo with: hfx repair --undo (\d+)/.exec(applied.out)![1]!;
		expect(hfx(['repair', '--undo', entry, '--yes', '--db', s.db]).code).toBe(0);
		expect(scan(s.db).json.rollbacks.map(r => r.skipped.id)).toEqual([s.orphan]);
	});
});

describe('a simulated incident, before and after the restart', () => {
	const before = useBuilt(() => simulatedIncident({restarted: false}));
	const after = useBuilt(() => simulatedIncident({platformIds: true}));
	const unknown = useBuilt(() => simulatedIncident({orphanSource: 'unknown'}));

	it('before the restart it is a rollback risk, which says what the restart will look like, not a rollback', () => {
		const {json} = scan(before.current.db);
		expect(json.rollbacks).toEqual([]);
		expect(json.findings.find(f => f.subject === SIM_KEY)?.kind).toBe('rollback-risk');
		expect(hfx(['scan', '--db', before.current.db]).stdout).toContain(
			'if the gateway restarts now, the chat jumps back',
		);
	});

	it('after it, platform ids inside the gap are part of the evidence', () => {
		const [r] = scan(after.current.db).json.rollbacks;
		expect(r.skipped.evidence.join(' ')).toMatch(
			/platform message ids 1006\.\.1015 lie between the resumed row's 1005 .* and 1016/,
		);
	});

	it("an orphan the accounting writer created (source 'unknown') is found and said so", () => {
		const [r] = scan(unknown.current.db).json.rollbacks;
		expect(r.skipped.id).toBe(unknown.current.orphan);
		expect(r.skipped.evidence.join(' ')).toContain("source is 'unknown'");
	});
});

describe.each([
	['a compression rotation', simulatedCompressionRotation],
	['a /new reset', simulatedResetNew],
	['a reset promoted at a restart (a deliberate fresh start)', simulatedResetPromotion],
	['a pending spool replayed with old timestamps', simulatedSpoolReplay],
] as const)('%s', (_name, build) => {
	const store = useBuilt(build);
	it('is not a rollback that happened', () => {
		const {json} = scan(store.current.db);
		expect(json.rollbacks).toEqual([]);
		expect(json.findings.map(f => f.kind)).not.toContain('rollback-happened');
	});
});

describe('a legacy store whose finder resumed an older keyed sibling over a newer one (P6)', () => {
	const store = useBuilt(legacySiblingAfterRestart);
	it('is a rollback that happened, naming both rows, with /resume as the way back', () => {
		const {current: s} = store;
		const {json} = scan(s.db);
		const [r] = json.rollbacks;
		expect(r).toMatchObject({sessionKey: SIM_KEY, resumedId: s.resumed, certainty: 'strong', after: {userTurns: 2}});
		expect(r.skipped).toMatchObject({id: s.passedOver, kind: 'same-key', messages: 40});
		expect(r.next).toContain(`/resume ${s.passedOver}`);
		expect(json.findings[0]).toMatchObject({kind: 'rollback-happened', subject: SIM_KEY});
	});
});
