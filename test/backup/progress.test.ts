/**
 * Progress of the long operations (source/backup/progress.ts): the bar is drawn only on a TTY,
 * throttled to one line per 80 ms but for the finishing event, fitted to the terminal's width with
 * its label made safe, and cleared once; HFX_PROGRESS=json writes one JSON line per event for a
 * parent process (throttled to 100 ms), which parseProgressLine reads back (null for anything else).
 */
import {Writable} from 'node:stream';
import {describe, expect, it} from 'vitest';
import {
	PHASE_WORDS,
	type ProgressEvent,
	parseProgressLine,
	progressSink,
	ttyProgressBar,
} from '../../source/backup/progress.js';

/** A real writable stream that keeps what is written, a terminal of `columns` when `tty`. */
function stream(tty: boolean, columns = 80): NodeJS.WriteStream & {text: () => string} {
	const chunks: string[] = [];
	const s = new Writable({
		write(chunk, _encoding, done) {
			chunks.push(String(chunk));
			done();
		},
	}) as unknown as NodeJS.WriteStream & {text: () => string};
	Object.assign(s, {isTTY: tty, columns, text: () => chunks.join('')});
	return s;
}

const EVENT: ProgressEvent = {phase: 'copy', label: 'state.db', done: 5 * 1_048_576, total: 20 * 1_048_576};

describe('ttyProgressBar', () => {
	it('no bar when the stream is no TTY', () => {
		expect(ttyProgressBar(stream(false))).toBeNull();
	});

	it('draws the fraction, the phase in words, the label and MiB, on one rewritten line', () => {
		const s = stream(true);
		ttyProgressBar(s)!.update(EVENT);
		const line = s.text();
		expect(line.startsWith('\r\u001B[2K[')).toBe(true);
		expect(line).toContain(' 25%  copying state.db  5.0 MiB/20 MiB');
		expect(line.length - '\r\u001B[2K'.length).toBeLessThanOrEqual(79);
		expect(line).not.toContain('\n');
	});

	it('throttles to one line per 80 ms, but always draws the finishing event', () => {
		const s = stream(true);
		const bar = ttyProgressBar(s)!;
		bar.update(EVENT);
		bar.update({...EVENT, done: 6 * 1_048_576});
		expect(s.text().match(/\r/g)).toHaveLength(1);
		bar.update({...EVENT, done: EVENT.total});
		expect(s.text()).toContain('100%');
	});

	it('makes the label safe and fits the line to a narrow terminal', () => {
		const s = stream(true, 20);
		ttyProgressBar(s)!.update({
			phase: 'extract',
			label: `evil\u001B]0;title\u0007${'x'.repeat(100)}`,
			done: 1,
			total: 2,
		});
		const line = s.text().slice('\r\u001B[2K'.length);
		expect(line).not.toMatch(/[\u0007\u001B]/);
		expect(line.length).toBe(39);
		expect(line).toContain('extracting');
	});

	it('clears its line once, and only when one is shown', () => {
		const s = stream(true);
		const bar = ttyProgressBar(s)!;
		bar.clear();
		expect(s.text()).toBe('');
		bar.update(EVENT);
		bar.clear();
		bar.clear();
		expect(s.text().endsWith('\r\u001B[2K')).toBe(true);
		expect(s.text().match(/\r\u001B\[2K/g)).toHaveLength(2);
	});
});

describe('progressSink', () => {
	it('HFX_PROGRESS=json: one JSON line per event, throttled, read back by parseProgressLine', () => {
		const s = stream(false);
		const sink = progressSink(s, {HFX_PROGRESS: 'json'})!;
		sink.update(EVENT);
		sink.update({...EVENT, done: 6 * 1_048_576});
		sink.update({...EVENT, done: EVENT.total});
		const lines = s.text().trimEnd().split('\n');
		expect(lines.map(parseProgressLine)).toEqual([EVENT, {...EVENT, done: EVENT.total}]);
	});

	it('a bar on a TTY, nothing on a pipe', () => {
		expect(progressSink(stream(true), {})).not.toBeNull();
		expect(progressSink(stream(false), {})).toBeNull();
	});
});

describe('parseProgressLine', () => {
	it('null for a line that is not progress, broken JSON, or counts that are not numbers', () => {
		expect(parseProgressLine('hfx: state.db: refused')).toBeNull();
		expect(parseProgressLine('{"progress":{')).toBeNull();
		expect(parseProgressLine('{"progress":{"phase":"copy","label":"x","done":"1","total":2}}')).toBeNull();
		expect(parseProgressLine(' {"progress":{"phase":"copy","label":"x","done":1,"total":2}}')).toBeNull();
	});

	it('every phase has its words', () => {
		expect(Object.keys(PHASE_WORDS)).toHaveLength(9);
		expect(PHASE_WORDS.readback).toBe('reading back');
	});
});
