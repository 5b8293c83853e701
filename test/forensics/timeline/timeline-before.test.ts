import {describe, expect, it} from 'vitest';
import type {ChatDiff} from '../../../source/forensics/analysis/diff.js';
import {beforeImageEvents} from '../../../source/forensics/timeline/timeline-before.js';

const KEY = 'agent:main:telegram:dm:1';
const moment = (restartResumes: string | null, newestIn: string | null, newestAt: number | null) => ({
	restartResumes,
	newestIn,
	newestAt,
	rollbackRisk: false,
	routingEntry: restartResumes,
});
const chat = (a: ChatDiff['a'], b: ChatDiff['b']): ChatDiff => ({
	sessionKey: KEY,
	a,
	b,
	targetChanged: a?.restartResumes !== b?.restartResumes,
	newestMoved: a?.newestIn !== b?.newestIn,
	rolledBack: false,
	changed: true,
});

describe('a before-image on the axis', () => {
	it('sits at the time the image records (strong), else at its newest message of the chat (weak), else nowhere', () => {
		const diff = {
			chats: [
				chat(
					moment('20260101_000000_aaaaaaaa', '20260101_000000_aaaaaaaa', 500),
					moment('20260101_000000_bbbbbbbb', '20260101_000000_bbbbbbbb', 900),
				),
			],
			routing: [],
		};
		expect(beforeImageEvents(KEY, {path: 'x.zip', kind: 'archive', takenAt: 600}, diff)[0]).toMatchObject({
			at: 600,
			certainty: 'strong',
			kind: 'before-image',
		});
		expect(beforeImageEvents(KEY, {path: 'x.bak', kind: 'emergency-snapshot', takenAt: null}, diff)[0]).toMatchObject({
			at: 500,
			certainty: 'weak',
		});
		expect(
			beforeImageEvents(
				KEY,
				{path: 'x.bak', kind: 'emergency-snapshot', takenAt: null},
				{chats: [chat(null, moment(null, null, null))], routing: []},
			),
		).toEqual([]);
	});

	it('says what moved for the chat, and only when something did', () => {
		const moved = beforeImageEvents(
			KEY,
			{path: 'x.zip', kind: 'archive', takenAt: 600},
			{
				chats: [
					chat(
						moment('20260101_000000_aaaaaaaa', '20260101_000000_aaaaaaaa', 500),
						moment('20260101_000000_bbbbbbbb', '20260101_000000_bbbbbbbb', 900),
					),
				],
				routing: [
					{
						scope: 's',
						sessionKey: KEY,
						kind: 'repointed',
						a: {sessionId: '20260101_000000_aaaaaaaa', updatedAt: 1},
						b: {sessionId: '20260101_000000_bbbbbbbb', updatedAt: 2},
					},
				],
			},
		)[0]!;
		expect(moved.evidence).toEqual(
			expect.arrayContaining([
				'what a restart resumes moved: aaaaaaaa then, bbbbbbbb now',
				`gateway_routing[${KEY}] repointed between the image and now: aaaaaaaa → bbbbbbbb`,
			]),
		);
		const same = moment('20260101_000000_aaaaaaaa', '20260101_000000_aaaaaaaa', 500);
		const still = beforeImageEvents(
			KEY,
			{path: 'x.zip', kind: 'archive', takenAt: 600},
			{chats: [{...chat(same, same), targetChanged: false, newestMoved: false, changed: false}], routing: []},
		)[0]!;
		expect(still.text).toContain('nothing of this chat changed since');
	});
});
