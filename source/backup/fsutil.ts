/**
 * Kept only for test/commands/backup.test.ts, which imports processStartTicks from here: the
 * helpers that lived in this file are now one job each (durable.ts, digest.ts, liveness.ts,
 * stamp.ts, temps.ts, write-failure.ts). Remove this file once that test imports liveness.js.
 */
export {processStartTicks} from './liveness.js';
