/**
 * The agent side of the TUI benchmark: commits one message every `1000/rate` ms into one
 * session of the store (and bumps its counters, as Hermes does), for `seconds`, then prints one
 * JSON line: the wall-clock time (ms) and the session's message count after each commit.
 *
 *   node dist-bench/tui-writer.js DB SESSION_ID RATE SECONDS
 */
import Database from 'better-sqlite3';

const [dbPath, sessionId, rateText, secondsText] = process.argv.slice(2);
if (!dbPath || !sessionId) {
	throw new Error('usage: tui-writer DB SESSION_ID RATE SECONDS');
}

const rate = Number(rateText ?? 200);
const seconds = Number(secondsText ?? 10);
const db = new Database(dbPath, {fileMustExist: true, timeout: 5000});
db.pragma('journal_mode = wal');
const insert = db.prepare('INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, ?, ?, ?)');
const bump = db.prepare('UPDATE sessions SET message_count = message_count + 1, last_activity_at = ? WHERE id = ?');
const count = db.prepare('SELECT message_count FROM sessions WHERE id = ?').pluck();
const commit = db.transaction((now: number, n: number) => {
	insert.run(sessionId, n % 2 === 0 ? 'user' : 'assistant', `benchmark message ${n}`, now / 1000);
	bump.run(now / 1000, sessionId);
});

const commits: Array<[number, number]> = [];
const started = Date.now();
let n = 0;
let stop = false;
process.on('SIGTERM', () => {
	stop = true;
});

function step(): void {
	const now = Date.now();
	if (stop || now - started >= seconds * 1000) {
		db.close();
		process.stdout.write(`${JSON.stringify({commits})}\n`);
		return;
	}

	commit(now, n++);
	commits.push([Date.now(), count.get(sessionId) as number]);
	const next = started + (n * 1000) / rate;
	setTimeout(step, Math.max(0, next - Date.now()));
}

step();
