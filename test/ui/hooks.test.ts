/**
 * A source's values on their way to the screen (source/ui/hooks.ts listenerOf): a value that needs a job before its
 * frame (a list made whole, issue #26) is handed on after the job, in a task of its own, so that a key pressed
 * meanwhile is answered first; a newer value published while the job waits is the one drawn.
 */
import {describe, expect, it} from 'vitest';
import {listenerOf} from '../../source/ui/hooks.js';

const nextTask = () => new Promise(resolve => setImmediate(resolve));

describe('a source value with a job to do before its frame', () => {
	it('is handed on after its job, in a later task; one without a job at once', async () => {
		const log: string[] = [];
		const listener = listenerOf<string>(value => log.push(`set ${value}`), undefined, {
			each: value => log.push(`each ${value}`),
			ahead: value => (value === 'whole' ? () => log.push(`job ${value}`) : null),
		});
		listener('patched');
		expect(log).toEqual(['each patched', 'set patched']);
		listener('whole');
		expect(log).toEqual(['each patched', 'set patched', 'each whole']);
		// The task that published it ends with the job not run: what waits in the event loop (a key) comes first.
		await nextTask();
		expect(log).toEqual(['each patched', 'set patched', 'each whole', 'job whole', 'set whole']);
	});

	it('is not handed on after a newer value published while its job waited', async () => {
		const set: string[] = [];
		const listener = listenerOf<string>(value => set.push(value), undefined, {
			ahead: value => (value.startsWith('whole') ? () => undefined : null),
		});
		listener('whole 1');
		listener('patched 2');
		await nextTask();
		await nextTask();
		expect(set).toEqual(['patched 2']);
		listener('whole 3');
		await nextTask();
		expect(set).toEqual(['patched 2', 'whole 3']);
	});

	it('answering a key, is handed on at once, its job first (the frame of the key shows the new store whole)', () => {
		const log: string[] = [];
		const listener = listenerOf<string>(value => log.push(`set ${value}`), undefined, {
			ahead: value => () => log.push(`job ${value}`),
		});
		listener('focused', true);
		expect(log).toEqual(['job focused', 'set focused']);
	});
});
