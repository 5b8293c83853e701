/**
 * One `hfx scan --db DB --json`, phase by phase, in a fresh process (cold JIT, as the CLI runs):
 * prints a JSON object of milliseconds per phase. Used by the scan section to say where the
 * time goes. `node dist-bench/phases.js DB`
 */
import fs from 'node:fs';

const marks: Array<[string, number]> = [['node boot', performance.now()]];
let last = performance.now();
function mark(name: string): void {
	const now = performance.now();
	marks.push([name, now - last]);
	last = now;
}

const dbPath = process.argv[2];
if (!dbPath) {
	throw new Error('usage: node dist-bench/phases.js DB');
}

// What cli/main.js loads: its flag parser statically, then the scan command and its context.
await import('../dist/cli/args.js');
const {locateStores} = await import('../dist/store/locate.js');
const {readStore} = await import('../dist/store/open/immutable-read.js');
const {detectSchema} = await import('../dist/store/open/schema.js');
const {readSnapshot} = await import('../dist/store/read/read-snapshot.js');
const {describe} = await import('../dist/store/read/load.js');
const {routingHomeOf} = await import('../dist/store/read/routing-home.js');
const {analyze} = await import('../dist/forensics/analysis/analyze.js');
const {storeJson} = await import('../dist/report/analysis/scan-json.js');
mark('imports');

const location = locateStores({db: dbPath, env: process.env}).stores[0]!;
mark('locate');
// As the CLI reads (store/read/load.ts loadStore): through readStore, a stopped store in place, never a copy of it.
const {facts, snapshot} = readStore(location.path, store => {
	mark('preflight + open');
	const schema = detectSchema(store);
	mark('detectSchema');
	const home = routingHomeOf(location, schema);
	const read = readSnapshot(store, schema, home.context, {columns: 'lean'});
	mark('readSnapshot (SQL + row mapping)');
	return {facts: describe(store, location, schema, read.snapshot, read.meta, home.mirror), snapshot: read.snapshot};
});
mark('describe + close');
const analysis = analyze(snapshot, {maxGapSeconds: 900});
mark('analyze');
const shaped = storeJson(facts, analysis);
mark('storeJson');
const text = JSON.stringify({...shaped, exitCode: 1}, null, 2);
mark('JSON.stringify');
const fd = fs.openSync('/dev/null', 'w');
fs.writeSync(fd, `${text}\n`);
fs.closeSync(fd);
mark('write');

process.stdout.write(
	`${JSON.stringify({
		phases: Object.fromEntries(marks),
		jsonBytes: Buffer.byteLength(text),
		sessions: snapshot.sessions.length,
		chats: analysis.routing.length,
		heapUsedMb: process.memoryUsage().heapUsed / 1_048_576,
	})}\n`,
);
