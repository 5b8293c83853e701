/**
 * What `hfx sessions` prints (report/sessions/sessions.ts): the table with each row's status glyph, chat,
 * times and message count, the count line (hidden rows and --limit said); and the --json document,
 * whose parent is the lineage edge's when there is one.
 */
import {describe, expect, it} from 'vitest';
import {analyze} from '../../../source/forensics/analysis/analyze.js';
import {statusIndex} from '../../../source/forensics/analysis/status.js';
import {sessionJson, sessionLines, sessionsJson} from '../../../source/report/sessions/sessions.js';
import {databaseFacts} from '../../helpers/database-facts.js';
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
const ENDED = session({
	id: 'ended-0001',
	source: 'cli',
	chatId: '7',
	title: 'notes',
	endReason: 'user_exit',
	parentSessionId: 'zombie-0001',
	inputTokens: 5,
});
const TOOL = session({id: 'tool-0001', source: 'tool'});
const ALL = [ZOMBIE, ORPHAN, ENDED, TOOL];
const analysis = analyze(snapshot(ALL));
const index = statusIndex(analysis);

describe('sessionLines', () => {
	it('shows a row per session with its glyph, chat and messages, and the legend', () => {
		const lines = sessionLines([ORPHAN, ZOMBIE, ENDED], 3, analysis, index, 50);
		expect(lines.slice(0, 6)).toEqual([
			'   id           source    chat                       title  started           last active       ' +
				'msgs  end reason',
			'─  ───────────  ────────  ─────────────────────────  ─────  ────────────────  ────────────────  ' +
				'────  ──────────',
			'O  orphan-0001  telegram  —                                 2023-11-14 22:14  2023-11-15 22:13    12',
			'Z  zombie-0001  telegram  agent:main:telegram:dm:42         2023-11-14 21:13  2023-11-14 22:13     1',
			'·  ended-0001   cli       ?:7                        notes  2023-11-14 22:13  2023-11-14 22:14     1  user_exit',
			'',
		]);
		expect(lines[6]).toBe(
			'3 of 3 sessions shown (1 tool/delegate rows hidden: --all). Status: Z zombie  O orphan  ! newest ' +
				'activity a restart would skip  R resumed stale (a restart resumed it: rolled back)  S stranded (the ' +
				'conversation that restart skipped)  ● live  · ended',
		);
	});

	it('says --limit when fewer rows are shown than selected, and no hidden rows when none are', () => {
		const all = analyze(snapshot([ZOMBIE, ORPHAN]));
		const last = sessionLines([ORPHAN], 2, all, statusIndex(all), 1).at(-1)!;
		expect(last).toMatch(/^1 of 2 sessions shown \(--limit 1; --limit 0 for all\)\. Status:/);
		expect(last).not.toContain('hidden');
	});
});

describe('sessionJson and sessionsJson', () => {
	it('carries the row, its status, its lineage edge and its tokens', () => {
		expect(sessionJson(ENDED, analysis, index)).toEqual({
			id: 'ended-0001',
			status: 'ended',
			source: 'cli',
			title: 'notes',
			sessionKey: null,
			chatId: '7',
			chatType: null,
			threadId: null,
			userId: null,
			displayName: null,
			profileName: null,
			parentSessionId: 'zombie-0001',
			lineageKind: analysis.lineage.parentEdge.get('ended-0001')!.kind,
			startedAt: T0,
			endedAt: T0 + 120,
			endReason: 'user_exit',
			lastActive: T0 + 60,
			newestMessageAt: T0 + 60,
			messageCount: 1,
			toolCallCount: 0,
			model: null,
			tokens: {input: 5, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0},
		});
		expect(sessionJson(ORPHAN, analysis, index)).toMatchObject({status: 'orphan', messageCount: 12, lineageKind: null});
		expect(sessionJson(ZOMBIE, analysis, index).status).toBe('zombie');
	});

	it("takes the parent from a marker-only edge (model_config's branch marker, no parent_session_id)", () => {
		const branch = session({id: 'branch-0001', source: 'cli', branchedFrom: 'ended-0001'});
		const withBranch = analyze(snapshot([...ALL, branch]));
		expect(sessionJson(branch, withBranch, statusIndex(withBranch))).toMatchObject({
			parentSessionId: 'ended-0001',
			lineageKind: 'branch',
		});
	});

	it('names the store, its owner and rule set, the total selected and the rows shown', () => {
		const doc = sessionsJson(databaseFacts({ruleSet: 'v25'}), 4, [ORPHAN], analysis, index);
		expect(doc).toMatchObject({
			database: '/home/u/.hermes/state.db',
			owner: 'default',
			ownerSource: 'the default home (~/.hermes)',
			ruleSet: 'v25',
			total: 4,
		});
		expect(doc.sessions.map(s => s.id)).toEqual(['orphan-0001']);
	});
});
