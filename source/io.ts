/**
 * Where a command's output goes and the flags every command shares: the one interface the
 * commands and the TUI host both take (the ground floor, so neither imports the other for it).
 */

export type GlobalFlags = {
	db?: string;
	home?: string;
	profile?: string;
	/** --routing-scope: judge a copied store as the gateway of that sessions folder. */
	routingScope?: string;
	json: boolean;
	maxGapSeconds: number;
	color: boolean;
};

export type Io = {
	out: (line: string) => void;
	err: (line: string) => void;
	/** Seconds since the epoch; injectable so output is reproducible in tests. */
	now: () => number;
	env: NodeJS.ProcessEnv;
};

export const processIo: Io = {
	out: line => process.stdout.write(`${line}\n`),
	err: line => process.stderr.write(`${line}\n`),
	now: () => Date.now() / 1000,
	env: process.env,
};
