/**
 * One place decides what Ctrl-C, SIGTERM and SIGHUP do (issue #30 point 3): source/ground/interrupts.ts. A command that
 * ends itself on a signal (hfx watch, the live view, the demo's gateway) owns the signals through its
 * `ownSignals`; no other file listens on `process` for a signal itself. Every offender at once, as file:line.
 */
import fs from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ROOT} from '../helpers/writer.js';

const SOURCE = path.join(ROOT, 'source');
const POLICY = 'ground/interrupts.ts';
/** A listener for a signal on process: process.on('SIGTERM', …), once, addListener, prependListener... */
const LISTENS = /\bprocess\s*\.\s*(?:on|once|addListener|prependListener|prependOnceListener)\s*\(\s*['"`]SIG/;

function sourceFiles(dir: string): string[] {
	return fs.readdirSync(dir, {withFileTypes: true}).flatMap(e => {
		const p = path.join(dir, e.name);
		return e.isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(e.name) ? [p] : [];
	});
}

function listeners(rel: string, text: string): string[] {
	return text.split('\n').flatMap((line, i) => (LISTENS.test(line) ? [`${rel}:${i + 1}`] : []));
}

describe('the one interrupt policy', () => {
	it('no file but ground/interrupts.ts listens for a signal (every offender at once)', () => {
		const found = sourceFiles(SOURCE).flatMap(file => {
			const rel = path.relative(SOURCE, file).split(path.sep).join('/');
			return rel === POLICY ? [] : listeners(rel, fs.readFileSync(file, 'utf8'));
		});
		expect(found).toEqual([]);
	});

	it('catches a listener on process for a signal, and not the policy own use or an exit hook', () => {
		expect(listeners('ui/host.tsx', "\tprocess.once('SIGTERM', onSignal);")).toEqual(['ui/host.tsx:1']);
		expect(listeners('simulator/gateway.ts', "x\nprocess.on('SIGINT', stop);")).toEqual(['simulator/gateway.ts:2']);
		expect(listeners('cli/main.tsx', "process.on('uncaughtException', error => {")).toEqual([]);
		expect(listeners('commands/demo.ts', "child.kill('SIGTERM');")).toEqual([]);
	});

	it('the policy itself listens for SIGINT, SIGTERM and SIGHUP', () => {
		const text = fs.readFileSync(path.join(SOURCE, POLICY), 'utf8');
		expect(text).toMatch(/\['SIGINT', 130\]/);
		expect(text).toMatch(/\['SIGTERM', 143\]/);
		expect(text).toMatch(/\['SIGHUP', 129\]/);
		expect(text).toMatch(/process\.on\(signal,/);
	});
});
