/**
 * Process liveness for the backup side's stale locks and debris: the ground's one definition
 * (source/liveness.ts), which the repair's audit reconciliation and the temp sweep share.
 */
export {isPidAlive, processStartTicks} from '../liveness.js';
