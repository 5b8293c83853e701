/**
 * The --json document of a refusal: `{error: {file, kind, reason, next}}` on stdout, beside its one
 * line on stderr, whatever the command.
 */
import type {FailClosed} from '../ground/errors.js';

export function refusalJson(refusal: FailClosed) {
	return {error: refusal.toJSON()};
}
