/**
 * The search text as hfx hands it to FTS5 (forensics/search/search-query.ts): every term one FTS5
 * string, so no operator, column filter, prefix, NEAR or stray quote in an operator's text can
 * make MATCH fail or mean anything else; checked against a real FTS5 table (unicode61 and
 * trigram), where the same text given raw fails.
 */
import Database from 'better-sqlite3';
import {afterAll, describe, expect, it} from 'vitest';
import {MAX_TERMS, ftsString, parseSearchQuery, searchTerms} from '../../../source/forensics/search/search-query.js';

const HOSTILE = [
	'NEAR(a b',
	'a OR',
	'AND b',
	'NOT',
	'content:merged',
	'tool_name : x',
	'"unbalanced',
	'a"b"c',
	'***',
	'*prefix',
	'merged*',
	'^start',
	'-minus',
	'+plus',
	'{a b}: c',
	'(((',
	')',
	'a AND (b OR',
	'""',
	'"" "x"',
	'col:"x" NEAR/2',
	'\u0000json:',
	'x\u001b[2Jy',
	'中文 OR 测试',
	'emoji 👩‍💻 ok',
	'\\',
	'%_',
	'a'.repeat(300),
	'x:y:z',
	'NEAR("a" "b", 2)',
];

const db = new Database(':memory:');
db.exec(`CREATE VIRTUAL TABLE words USING fts5(content);
CREATE VIRTUAL TABLE grams USING fts5(content, tokenize='trigram');
INSERT INTO words(content) VALUES ('the PR that got merged: content NEAR the end'), ('中文测试内容');
INSERT INTO grams(content) SELECT content FROM words;`);
afterAll(() => db.close());

const match = (table: string, expression: string) =>
	db.prepare(`SELECT rowid FROM ${table} WHERE ${table} MATCH ?`).all(expression);

describe('parseSearchQuery (the FTS5 sanitiser)', () => {
	it('quotes every term: no FTS5 syntax in the text can make MATCH fail, on the word or the trigram index', () => {
		for (const text of HOSTILE) {
			const q = parseSearchQuery(text);
			if (q?.match) {
				expect(() => match('words', q.match!), text).not.toThrow();
				expect(() => match('grams', q.match!), text).not.toThrow();
			}
		}
	});

	it('the same texts given raw do fail (what the sanitiser is for)', () => {
		const failing = HOSTILE.filter(text => {
			try {
				match('words', text);
				return false;
			} catch {
				return true;
			}
		});
		expect(failing.length).toBeGreaterThan(10);
	});

	it('operators are words: "merged AND OR" finds nothing a literal reading would not', () => {
		expect(parseSearchQuery('PR OR nothing')!.match).toBe('"PR" "OR" "nothing"');
		expect(match('words', parseSearchQuery('PR OR nothing')!.match!)).toEqual([]);
		expect(match('words', parseSearchQuery('content:merged')!.match!)).toEqual([]);
		expect(match('words', parseSearchQuery('got merged')!.match!)).toEqual([{rowid: 1}]);
	});

	it('keeps a balanced quoted phrase whole, drops stray quotes, doubles none left inside', () => {
		expect(searchTerms('"got merged" PR "x')).toEqual(['got merged', 'PR', 'x']);
		expect(parseSearchQuery('"got merged" PR')!.match).toBe('"got merged" "PR"');
		expect(ftsString('a"b')).toBe('"a""b"');
	});

	it('control characters become spaces; empty or punctuation-only text has no MATCH', () => {
		expect(parseSearchQuery('a\u001b[2Jb\u0000c')!.terms).toEqual(['a', 'b', 'c']);
		expect(parseSearchQuery('\u001b]0;title\u0007merged\u009b31m x\u202e')!.terms).toEqual(['merged', 'x']);
		expect(parseSearchQuery(' \u0000\u0007 ')).toBeNull();
		expect(parseSearchQuery('***')).toMatchObject({terms: ['***'], match: null});
	});

	it('marks CJK text and the shortest term (the trigram index needs 3 characters)', () => {
		expect(parseSearchQuery('中文')).toMatchObject({cjk: true, shortest: 2});
		expect(parseSearchQuery('文测试')).toMatchObject({cjk: true, shortest: 3});
		expect(match('grams', parseSearchQuery('文测试')!.match!)).toEqual([{rowid: 2}]);
		expect(parseSearchQuery('merged')!.cjk).toBe(false);
	});

	it('keeps at most MAX_TERMS terms', () => {
		expect(parseSearchQuery(Array.from({length: 100}, (_, i) => `w${i}`).join(' '))!.terms).toHaveLength(MAX_TERMS);
	});
});
