/**
 * The watch section's leak probe: the follower `hfx watch` runs (dist/commands/shared/watch-follower.js,
 * the same code), in a process of its own started with --expose-gc, reading the store every
 * `--every` seconds while the section's writer commits; after each reading a full GC, then the
 * live heap (heapUsed) and V8's reserved heap (heapTotal). A leak raises the live heap; V8 sizing
 * its heap to the allocation rate raises only heapTotal (and RSS). Prints one JSON line at the end.
 *
 *   node --expose-gc dist-bench/watch-heap.js DB SECONDS EVERY_SECONDS
 */
import {StoreFollower} from '../dist/commands/shared/watch-follower.js';

const [db, secondsText, everyText] = process.argv.slice(2);
const gc = (globalThis as {gc?: () => void}).gc;
if (!db || !gc) {
	throw new Error('usage: node --expose-gc watch-heap.js DB SECONDS EVERY_SECONDS');
}

const follower = new StoreFollower({path: db, owner: 'default', label: 'default'}, 3600);
const samples: Array<{at: number; live: number; total: number}> = [];
const started = Date.now();
let failed: string | null = null;
while (Date.now() - started < Number(secondsText) * 1000) {
	const reading = await follower.read([], Date.now());
	if (!reading.result.ok) {
		failed = reading.result.line;
		break;
	}

	gc();
	const m = process.memoryUsage();
	samples.push({at: (Date.now() - started) / 60_000, live: m.heapUsed / 1_048_576, total: m.heapTotal / 1_048_576});
	await new Promise(resolve => setTimeout(resolve, Number(everyText) * 1000));
}

await follower.close();
process.stdout.write(`${JSON.stringify({samples, failed})}\n`);
