/**
 * Which Hermes build runs the home's gateway: `code_version` and `code_sha` of its
 * `gateway_state.json` (stamped on every runtime-status write since PR #91283, hermes-incidents
 * §3.1), trusted only while that gateway runs (gateway-start.ts). The words are a label value, so
 * only a plain version and a hex commit pass; anything else is not said.
 */
import {type HermesBuild, buildLabel} from '../../forensics/routing/build-rules.js';
import {liveGatewayState} from './gateway-start.js';

export const VERSION = /^v?[0-9A-Za-z][0-9A-Za-z.+_-]{0,39}$/;
export const SHA = /^[0-9a-f]{7,40}$/;

/** The running gateway's build, with where it was read; null when it does not say (or none runs). */
export function gatewayHermesBuild(home: string): HermesBuild | null {
	const live = liveGatewayState(home);
	const version = live?.state.code_version;
	const sha = live?.state.code_sha;
	const v = typeof version === 'string' && VERSION.test(version) ? version : null;
	const c = typeof sha === 'string' && SHA.test(sha) ? sha : null;
	return v === null && c === null
		? null
		: {version: v, sha: c, from: `gateway_state.json of the running gateway (pid ${live!.start.pid})`};
}

/** `0.21.4@10e7de79a9ab`, `0.21.4`, `@10e7de79a9ab`, or null when the running gateway does not say (or none runs). */
export function gatewayBuild(home: string): string | null {
	return buildLabel(gatewayHermesBuild(home));
}
