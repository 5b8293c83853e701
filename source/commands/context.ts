/**
 * What every read-only command shares: the parsed flags, where output goes, and the way a store
 * is found, loaded and analysed (or refused in one line).
 */
import {analyze, type Analysis} from '../forensics/analysis/analyze.js';
import type {BuildRules} from '../forensics/routing/build-rules.js';
import {type FailClosed, type ExitCode, asRefusal, refusalExit} from '../ground/errors.js';
import {locateStores, type Located, type StoreLocation} from '../store/locate.js';
import {loadStore, type DatabaseFacts} from '../store/read/load.js';
import type {ColumnSet} from '../store/read/read-snapshot.js';
import {refusalJson} from '../report/refusal-json.js';
import {storeBuildRules} from '../store/places/store-build.js';
import type {Snapshot} from '../forensics/types.js';
import {testPause} from '../ground/test-pause.js';

export {type GlobalFlags, type Io, processIo} from '../ground/io.js';
import type {GlobalFlags, Io} from '../ground/io.js';

export type StoreResult =
	| {ok: true; location: StoreLocation; facts: DatabaseFacts; analysis: Analysis}
	| {ok: false; location: StoreLocation; error: FailClosed};

export function locate(flags: GlobalFlags, io: Io): Located {
	return locateStores({
		db: flags.db,
		home: flags.home,
		profile: flags.profile,
		routingScope: flags.routingScope,
		env: io.env,
	});
}

/** The installed build's rules for one store (store/places/store-build.ts). */
export function buildRulesOf(
	location: StoreLocation,
	ruleSet: DatabaseFacts['ruleSet'],
	flags: Pick<GlobalFlags, 'askHermes'>,
	env: NodeJS.ProcessEnv,
): BuildRules {
	return storeBuildRules(location.path, ruleSet, {askHermes: flags.askHermes, env});
}

/** A store read and its build's rules known, its analysis not yet run; or refused in one line. */
export type LoadedStore =
	| {ok: true; location: StoreLocation; facts: DatabaseFacts; snapshot: Snapshot; buildRules: BuildRules}
	| {ok: false; location: StoreLocation; error: FailClosed};

/** `lean` reads only what the forensic engine needs (scan); views that print titles and tokens need `full`. */
export function loadForAnalysis(
	location: StoreLocation,
	flags: GlobalFlags,
	columns: ColumnSet = 'full',
	env: NodeJS.ProcessEnv = process.env,
): LoadedStore {
	try {
		const loaded = loadStore(location, {columns});
		const buildRules = buildRulesOf(location, loaded.facts.ruleSet, flags, env);
		return {ok: true, location, facts: loaded.facts, snapshot: loaded.snapshot, buildRules};
	} catch (error) {
		// A refusal, or a file error of the OS (its one line): this store is refused, the others still run.
		const refusal = asRefusal(error);
		if (refusal) {
			return {ok: false, location, error: refusal};
		}

		throw error;
	}
}

/** The analysis of a store read by loadForAnalysis (pure: no file is touched, nothing is refused any more). */
export function analyzeLoaded(loaded: Extract<LoadedStore, {ok: true}>, flags: GlobalFlags): Analysis {
	testPause('analysis');
	return analyze(loaded.snapshot, {maxGapSeconds: flags.maxGapSeconds, buildRules: loaded.buildRules});
}

export function loadAndAnalyze(
	location: StoreLocation,
	flags: GlobalFlags,
	columns: ColumnSet = 'full',
	env: NodeJS.ProcessEnv = process.env,
): StoreResult {
	const loaded = loadForAnalysis(location, flags, columns, env);
	return loaded.ok
		? {ok: true, location, facts: loaded.facts, analysis: analyzeLoaded(loaded, flags)}
		: {ok: false, location, error: loaded.error};
}

/**
 * A command's one report, the same data either way: its JSON document under --json, else its
 * text lines. Every command prints through it; the Io sinks make each text line safe for a
 * terminal (ground/io.ts) and keep the JSON exact.
 */
export function emit(
	io: Io,
	flags: Pick<GlobalFlags, 'json'>,
	report: {json: () => unknown; text: () => Iterable<string>},
): void {
	if (flags.json) {
		io.json(report.json());
		return;
	}

	for (const line of report.text()) {
		io.out(line);
	}
}

/**
 * Runs a command body; a FailClosed (or a file error of the OS) anywhere becomes its one line on stderr and its exit
 * code.
 */
export async function guarded(
	io: Io,
	flags: Pick<GlobalFlags, 'json'>,
	body: () => Promise<ExitCode> | ExitCode,
): Promise<ExitCode> {
	try {
		return await body();
	} catch (error) {
		const code = refusalExit(error, io.err);
		if (flags.json) {
			io.json(refusalJson(asRefusal(error)!));
		}

		return code;
	}
}

/** Loads exactly one store (the first located one, or the one --profile names) or throws. */
export function loadOne(flags: GlobalFlags, io: Io): {located: Located; result: Extract<StoreResult, {ok: true}>} {
	const located = locate(flags, io);
	const result = loadAndAnalyze(located.stores[0]!, flags, 'full', io.env);
	if (!result.ok) {
		throw result.error;
	}

	return {located, result};
}
