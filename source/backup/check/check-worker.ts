/**
 * Worker thread: runs checkDatabaseFileSync on a private copy so the main thread can keep
 * writing the archive meanwhile (integrity_check is the slowest step of a backup).
 */
import {parentPort} from 'node:worker_threads';
import {checkDatabaseFileSync} from './db-check.js';

// Started ahead of its file (db-check-run.ts startCheck): the file comes in the first message.
parentPort?.once('message', ({file}: {file: string}) => {
	parentPort?.postMessage(checkDatabaseFileSync(file));
	parentPort?.close();
});
