/**
 * The installed build's rules for one store (hermes-incidents §3.2, issue #27), for every caller
 * (the commands, the live view, the TUI's repair): the running gateway's `gateway_state.json`
 * first; else the install's checkout HEAD or `.hermes_build_sha` (installed, maybe not running: a
 * stopped gateway's next start runs it); else, when the operator asks (`--ask-hermes`), `hermes
 * --version`; else the store's generation alone. Each note on the way (a hostile install file, no
 * hermes on PATH) leads the decided-by words.
 */
import path from 'node:path';
import {type BuildRules, type HermesBuild, resolveBuildRules} from '../../forensics/routing/build-rules.js';
import type {RuleSet} from '../../forensics/generations.js';
import {gatewayHermesBuild} from './gateway-build.js';
import {askHermesVersion} from './hermes-version.js';
import {installedBuildOfStore} from './installed-build.js';

/** `hermes --version`, asked once per run whatever the number of stores. */
let asked: ReturnType<typeof askHermesVersion> | undefined;

export type StoreBuildOptions = {askHermes?: boolean; env: NodeJS.ProcessEnv};

export function storeBuildRules(dbPath: string, ruleSet: RuleSet, options: StoreBuildOptions): BuildRules {
	let build: HermesBuild | null = gatewayHermesBuild(path.dirname(path.resolve(dbPath)));
	let note = '';
	if (build === null) {
		({build, note} = installedBuildOfStore(dbPath, options.env));
	}

	if (build === null && options.askHermes === true) {
		asked ??= askHermesVersion(options.env);
		build = asked.build;
		note = [note, asked.note].filter(n => n !== '').join('; ');
	}

	const rules = resolveBuildRules(ruleSet, build);
	return note === '' ? rules : {...rules, decidedBy: `${note}; ${rules.decidedBy}`};
}
