/**
 * Kept only for test/commands/backup.test.ts, which imports runCli from here: runCli lives in
 * run-cli.ts. Remove this file once that test imports run-cli.js.
 */
export {type CliRun, runCli} from './run-cli.js';
