/**
 * Worker thread: runs checkDatabaseFileSync on a private copy so the main thread can keep
 * writing the archive meanwhile (integrity_check is the slowest step of a backup).
 */
import {parentPort, workerData} from 'node:worker_threads';
import {checkDatabaseFileSync} from './db-check.js';

const {file} = workerData as {file: string};
parentPort?.postMessage(checkDatabaseFileSync(file));
