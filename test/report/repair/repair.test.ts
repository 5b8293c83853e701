/**
 * The repair plan as text (report/repair/repair.ts): each value shown whole (NULL, blobs, escapes), an
 * adoption's columns before and after in the wide and the narrow layout, what a restart resumes
 * before and after, the warnings, the turns written since a restart, the store's generation notes,
 * and the refusals with their candidates.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import type {OrphanVerdict} from '../../../source/forensics/routing/orphans.js';
import type {Planned} from '../../../source/repair/apply.js';
import {type Adoption, planHash, planRepair} from '../../../source/repair/plan/plan.js';
import {candidateLines} from '../../../source/report/analysis/candidates.js';
import {
	adoptionLines,
	generationNotes,
	planLines,
	show,
	writtenSinceLines,
} from '../../../source/report/repair/repair.js';
import {upgradeNotice} from '../../../source/store/read/load.js';
import {T0, dmKey, session, snapshot} from '../../helpers/records.js';

const K = dmKey('42');
const ZOMBIE = session({
	id: 'zombie-0001',
	sessionKey: K,
	userId: 'u1',
	chatId: '42',
	chatType: 'dm',
	startedAtRaw: T0 - 3600,
	newestMessageAt: T0,
});
const ORPHAN = session({id: 'orphan-0001', startedAtRaw: T0 + 60, newestMessageAt: T0 + 86_400, messageRows: 12});
const COLUMNS = new Set(['id', 'source', 'session_key', 'chat_id', 'chat_type', 'user_id', 'ended_at', 'end_reason']);

function planned(ruleSet: 'v30' | 'legacy-v21' = 'v30'): Planned {
	const analysis = analyze(snapshot([ZOMBIE, ORPHAN], {ruleSet}));
	const rows = new Map(
		[ZOMBIE, ORPHAN].map(s => [
			s.id,
			{
				id: s.id,
				source: s.source,
				session_key: s.sessionKey,
				chat_id: s.chatId,
				chat_type: s.chatType,
				user_id: s.userId,
				ended_at: null,
				end_reason: null,
			},
		]),
	);
	const plan = planRepair({analysis, rows, sessionColumns: COLUMNS, now: T0 + 200_000});
	return {
		plan,
		analysis,
		rows,
		basis: {dev: 1, ino: 2, mxFrame: 0, salts: null, changeCounter: 1, rowsHash: 'r'},
		hash: planHash(plan, 'r'),
		// What computePlan carries for a store repair-routing reads without failing: no refusal.
		refusal: null,
		sqliteVersion: '3.50.0',
		sessionColumns: COLUMNS,
		schema: {version: ruleSet === 'v30' ? 30 : 21, ruleSet},
	};
}

const ADOPTION: Adoption = planned().plan.adoptions[0]!;
const HEAD = [`→ adopt orphan-0001 (12 messages) into ${K}`, '  evidence contiguity; donor zombie-0001'];
const TAIL = ['  a restart resumes: before zombie-0001 (ROLLBACK RISK) → after orphan-0001'];
const STILL_OPEN = 'the donor zombie-0001 is still open: the repair ends it now (it will never be resumed again)';

describe('show', () => {
	it('shows NULL, a blob by its size, a big integer whole, and text escaped', () => {
		expect(show(null)).toBe('NULL');
		expect(show({hex: '00ff10'})).toBe('<blob 3 bytes>');
		expect(show({bigint: '9007199254740993'})).toBe('9007199254740993');
		expect(show(42)).toBe('42');
		expect(show('plain')).toBe('plain');
		expect(show('a\u001b[31mred')).not.toContain('\u001b');
	});
});

describe('adoptionLines', () => {
	it('puts the row label beside its columns when there is room (120 columns and up, or no width)', () => {
		const lines = adoptionLines(ADOPTION);
		expect(lines).toEqual([
			...HEAD,
			'  row                               column             before                         after',
			`  orphan orphan-0001                session_key        NULL                           ${K}`,
			'                                    chat_id            NULL                           42',
			'                                    chat_type          NULL                           dm',
			'                                    user_id            NULL                           u1',
			'                                    parent_session_id  NULL                           zombie-0001',
			'  donor zombie-0001                 ended_at           NULL                           <time of apply>',
			'                                    end_reason         NULL                           superseded_by_repair',
			...TAIL,
			`  ! ${STILL_OPEN}`,
		]);
		expect(adoptionLines(ADOPTION, 140)).toEqual(lines);
	});

	it('puts the row label above its columns under 120, and wraps every line within the width', () => {
		const lines = adoptionLines(ADOPTION, 80);
		expect(lines).toEqual([
			...HEAD,
			'  column               before             after',
			'  orphan orphan-0001',
			`    session_key        NULL               ${K}`,
			'    chat_id            NULL               42',
			'    chat_type          NULL               dm',
			'    user_id            NULL               u1',
			'    parent_session_id  NULL               zombie-0001',
			'  donor zombie-0001',
			'    ended_at           NULL               <time of apply>',
			'    end_reason         NULL               superseded_by_repair',
			...TAIL,
			'  ! the donor zombie-0001 is still open: the repair ends it now (it will never',
			'    be resumed again)',
		]);
		for (const line of lines) {
			expect(line.length).toBeLessThanOrEqual(80);
		}
	});

	it("says a column kept, the operator's donor, a new session, a conversation skipped and a risk that stays", () => {
		const [orphanRow, donorRow] = ADOPTION.rows;
		const a: Adoption = {
			...ADOPTION,
			evidence: 'operator',
			rows: [{...orphanRow, columns: [{...orphanRow.columns[0]!, changes: false}]}, donorRow],
			restartBefore: null,
			rollbackRiskBefore: false,
			rollbackRiskAfter: true,
			writtenSinceRestart: {messages: 3, userTurns: 1, firstAt: T0 + 90_000, lastAt: T0 + 90_600},
			warnings: [],
		};
		const lines = adoptionLines(a);
		expect(lines[1]).toBe('  evidence: your choice of donor zombie-0001 (repair-routing refuses this orphan)');
		expect(lines[3]).toMatch(/^ {2}orphan orphan-0001 +session_key +NULL +\(kept\)$/);
		expect(lines).toContain(
			'  a restart resumes: before a new session → after orphan-0001 (the conversation the restart skipped) ' +
				'(still at risk)',
		);
		expect(lines.slice(-3)).toEqual(writtenSinceLines(a));
	});
});

describe('writtenSinceLines', () => {
	it('has nothing when no restart wrote into the donor, else where those turns stay and how to export them', () => {
		expect(writtenSinceLines(ADOPTION)).toEqual([]);
		const lines = writtenSinceLines({
			...ADOPTION,
			writtenSinceRestart: {messages: 1, userTurns: 1, firstAt: T0, lastAt: T0 + 60},
		});
		expect(lines).toEqual([
			'  after the restart the gateway wrote 1 user turn (1 message, 2023-11-14 22:13 to 2023-11-14 22:14 UTC) ' +
				'into zombie-0001: they stay there, out of the resumed context once zombie-0001 is retired; still ' +
				'listed, searchable and reachable with /resume zombie-0001',
			`  lineage will read zombie-0001 → orphan-0001, though zombie-0001 holds the later turns: read the story ` +
				`by time with \`hfx timeline ${K}\``,
			'  next, if those turns matter: export them before applying, with `hermes sessions export --session-id ' +
				'zombie-0001`',
		]);
	});
});

describe('generationNotes', () => {
	it("names the owner and the rules; an older store's upgrade and its next step", () => {
		expect(generationNotes({owner: 'work', ownerSource: 'profiles/work'}, planned())).toEqual([
			'owner profile work (profiles/work) · rules of Hermes v30',
		]);
		const old = planned('legacy-v21');
		const notice = upgradeNotice(old.schema)!;
		expect(generationNotes({owner: 'default'}, old)).toEqual([
			'owner profile default (given) · rules of Hermes legacy-v21',
			`! ${notice.note}`,
			`  next: ${notice.next}`,
		]);
	});

	it("says the store's own repair-routing fails, on which session", () => {
		const p = planned();
		const crashed = {
			...p,
			analysis: {...p.analysis, repairRoutingCrash: {sessionId: 's-1', error: 'TypeError', note: 'n'}},
		};
		expect(generationNotes({owner: 'default'}, crashed)[1]).toBe(
			"✗ this store's own repair-routing fails (TypeError) on session s-1: it adopts nothing here, and " +
				'neither does hfx under its rules; `hfx scan` shows what current Hermes would decide',
		);
	});
});

describe('planLines', () => {
	it('lists each adoption, each refusal with its candidates, and what --only left out', () => {
		const p = planned();
		const refused: OrphanVerdict = {
			orphanId: 'lost-0001',
			source: '',
			messageCount: 1,
			startedAt: T0 + 30,
			lastActive: T0 + 90,
			verdict: 'refused',
			evidence: null,
			donorId: null,
			sessionKey: null,
			reasonKind: 'ambiguous_predecessor',
			reason: 'more than one candidate',
			candidateDonors: ['zombie-0001'],
			profileOwner: 'default',
			localSurface: false,
		};
		const lines = planLines({...p, plan: {...p.plan, refused: [refused], notSelected: ['x-1', 'x-2']}});
		expect(lines).toEqual([
			...adoptionLines(ADOPTION),
			'',
			'✗ not repairable lost-0001 (no source, 1 message): more than one candidate',
			...candidateLines(refused, p.analysis.byId, p.analysis.rollbacks).map(l => `    ${l}`),
			'(left out by --only: x-1, x-2)',
		]);
		expect(lines).toContain('    your choice, previewed first: hfx repair --only lost-0001 --donor zombie-0001');
	});
});
