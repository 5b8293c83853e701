/**
 * The gateway_routing scope an image is judged by (docs/hermes-rules.md, routing-scope): a gateway
 * loads only the rows of its own scope, the resolved `<HERMES_HOME>/sessions`. An image read from a
 * private copy (an archive, a snapshot, a capture) lies in no home: its scope is the home it came
 * from when that is known, else the scope most of its rows carry (the gateway that wrote them).
 * Pure.
 */
import type {Snapshot} from './types.js';

/**
 * The scope to judge `snapshot` by: `known` (its home's), else the one most rows name; null where the table has no
 * scope column.
 */
export function imageScope(snapshot: Pick<Snapshot, 'routing' | 'routingScope'>, known: string | null): string | null {
	if (snapshot.routingScope === null) {
		return null;
	}

	if (known !== null) {
		return known;
	}

	const counts = new Map<string, number>();
	for (const e of snapshot.routing) {
		counts.set(e.scope, (counts.get(e.scope) ?? 0) + 1);
	}

	const best = [...counts].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))[0];
	return best ? best[0] : snapshot.routingScope;
}
