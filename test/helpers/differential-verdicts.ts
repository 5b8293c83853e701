/**
 * What the real Hermes code decided on a generated store (test/fixtures/hermes-differential/expected-*.json) and
 * what hfx's scan JSON says, as one comparable shape, and every difference between them, one line each: shared by
 * the differential tests (test/commands/differential*.test.ts).
 */
export type RealRecord = {
	orphan_id: string;
	session_key: string | null;
	donor_id: string | null;
	evidence: string;
	adoptable: boolean;
	reason: string;
	message_count: number;
};
export type RealStore = {
	hash: string;
	classes: string[];
	/** null: that tree has no repair-routing (v21). */
	repair_routing: {crash: string | null; records: RealRecord[] | null} | null;
	finder: Record<string, string | null>;
	gateway_post_filter: Record<string, boolean>;
	adopted?: string[];
	finder_after_adoption?: Record<string, string | null>;
	gateway_post_filter_after_adoption?: Record<string, boolean>;
};
export type Real = {
	code: {schema_version: number; tree: string};
	seeds: number[];
	stores_per_seed: number;
	stores: Record<string, RealStore>;
};

/** One verdict, comparable between the real code and hfx. */
export type Verdicts = {
	crash: string | null;
	records: Record<string, unknown> | null;
	resumes: Record<string, string | null>;
};

/** What the real code decided: the finder's row unless the gateway's post-filter rejects it. */
export function realVerdicts(r: RealStore, after = false): Verdicts {
	const finder = after ? r.finder_after_adoption! : r.finder;
	const post = after ? r.gateway_post_filter_after_adoption! : r.gateway_post_filter;
	const records =
		r.repair_routing!.records &&
		Object.fromEntries(
			r.repair_routing!.records.map(x => [
				x.orphan_id,
				{
					key: x.session_key,
					donor: x.donor_id,
					evidence: x.evidence,
					adoptable: x.adoptable,
					reason: x.reason,
					count: x.message_count,
				},
			]),
		);
	const resumes = Object.fromEntries(Object.entries(finder).map(([k, id]) => [k, post[k] === false ? null : id]));
	return {crash: r.repair_routing!.crash, records, resumes};
}

/** What hfx says in its scan JSON, for the chat keys the real finder was asked about ('' is no chat: never listed). */
export function hfxVerdicts(json: any, keys: readonly string[]): Verdicts {
	const crash = json.repairRoutingCrash?.error ?? null;
	const listed = [...json.orphans, ...json.listedRefusedLocal];
	const records =
		crash === null
			? Object.fromEntries(
					listed.map((o: any) => [
						o.orphanId,
						{
							key: o.sessionKey,
							donor: o.donorId,
							evidence: o.evidence ?? '',
							adoptable: o.verdict === 'adoptable',
							// The real code gives a reason only for a refusal; hfx also says why an adoption holds.
							reason: o.verdict === 'adoptable' ? '' : (o.reason ?? ''),
							count: o.messageCount,
						},
					]),
				)
			: null;
	const resumes = Object.fromEntries(
		keys.map(k => {
			const chat = json.routing.find((c: any) => c.sessionKey === k);
			return [k, k === '' && chat ? '<listed as a chat>' : (chat?.restartResolvesTo ?? null)];
		}),
	);
	return {crash, records, resumes};
}

/** Every difference between two verdicts, one line each: `what: real … , hfx …`. */
export function mismatches(want: Verdicts, got: Verdicts): string[] {
	const out: string[] = [];
	const show = (v: unknown) => JSON.stringify(v);
	if (want.crash !== got.crash) {
		out.push(`repair-routing failure: real ${show(want.crash)}, hfx ${show(got.crash)}`);
	}

	for (const id of new Set([...Object.keys(want.records ?? {}), ...Object.keys(got.records ?? {})])) {
		const w = want.records?.[id] as Record<string, unknown> | undefined;
		const g = got.records?.[id] as Record<string, unknown> | undefined;
		if (!w || !g) {
			out.push(`record ${id}: real ${w ? 'lists it' : 'does not list it'}, hfx ${g ? 'lists it' : 'does not'}`);
			continue;
		}

		for (const field of Object.keys(w).filter(f => show(w[f]) !== show(g[f]))) {
			out.push(`record ${id} ${field}: real ${show(w[field])}, hfx ${show(g[field])}`);
		}
	}

	for (const key of Object.keys(want.resumes).filter(k => want.resumes[k] !== got.resumes[k])) {
		out.push(`restart of ${show(key)}: real ${show(want.resumes[key])}, hfx ${show(got.resumes[key])}`);
	}

	return out;
}
