/**
 * Worker thread: runs checkDatabaseFileSync on a private copy so the main thread can keep
 * writing the archive meanwhile (integrity_check is the slowest step of a backup).
 */
import {parentPort, workerData} from 'node:worker_threads';
import {testPause} from '../../ground/test-pause.js';
import {checkDatabaseFileSync, loadDriver} from './db-check.js';

// First the native driver, then the flag that lets the main thread stop this worker (db-check-run.ts, why).
testPause('check-worker-load');
loadDriver();
const loaded = (workerData as {loaded: Int32Array}).loaded;
Atomics.store(loaded, 0, 1);
Atomics.notify(loaded, 0);

// Started ahead of its file (db-check-run.ts startCheck): the file comes in the first message.
parentPort?.once('message', ({file}: {file: string}) => {
	// Once reading, the check has made every file it will make: a stop need not wait for its statement (db-check-run.ts).
	const reading = (): void => {
		Atomics.store(loaded, 1, 1);
		Atomics.notify(loaded, 1);
	};
	parentPort?.postMessage(checkDatabaseFileSync(file, reading));
	parentPort?.close();
});
