/**
 * The shapes of the reliability suite: a fault kind is a small declarative entry (what to build,
 * which commands to run with the real binary, the outcome the fixed product must give); a run is
 * what one attempt measured.
 */

/**
 * The class of issue #17 a fault belongs to (1–8 the broken classes, 9 what already holds); issue
 * #29's class N is 9 + N (11: schema objects in place of a table hfx reads, 12: a stale or wrong
 * answer from the follower, 13: hfx in the agent's way; its class 1, links, is issue #17's 2).
 */
export type FaultClass = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 11 | 12 | 13;

/**
 * What a command must end with: refused (exit 2, one line on stderr), finding (exit 1), ok (exit 0),
 * killed (we stopped it on purpose: a kill point), any-verdict (exit 0 or 1: a judgement, not a refusal),
 * unsound (exit 1 or 2: an archive judged damaged or refused, never sound), any (0, 1 or 2: judged by
 * `match` and `check`). Every exit 2 must be one line on stderr.
 */
export type StepExpect = 'refused' | 'finding' | 'ok' | 'killed' | 'any-verdict' | 'unsound' | 'any';

/** The outcome class a fault is reported under. */
export type Outcome = 'refused' | 'finding' | 'ok' | 'partial-cleaned';

/** How a step's process is stopped on purpose. */
export type KillPoint = {
	signal: 'SIGKILL' | 'SIGINT' | 'SIGTERM';
	/** Stop once this holds of the stdout so far (polled every ms), or after `afterMs` when it never does. */
	when?: (stdout: string) => boolean;
	afterMs?: number;
};

export type Step = {
	args: string[];
	expect: StepExpect;
	/** What stderr (for a refusal) or stdout must match. */
	match?: RegExp;
	/** What neither stdout nor stderr may contain. */
	notMatch?: RegExp;
	env?: NodeJS.ProcessEnv;
	input?: string;
	/** A wrapper before node, e.g. ['strace', '-f', ...] or a `bash -c 'ulimit -f N; exec "$@"'` prefix. */
	wrap?: string[];
	kill?: KillPoint;
	/** Runs the command on a pseudo-terminal (`script`), as the TUI runs; `input` is typed 2.5 s in. */
	pty?: boolean;
	/** Runs the step in the background: the next step starts at once (two instances at once). */
	concurrent?: boolean;
	/** Waited for before the step starts (a writer killed, a file planted). */
	before?: () => void | Promise<void>;
	/** A further check on what the step left; a string is a failure. */
	check?: (run: RunResult) => string | null;
};

/** What a fault's setup built: where the evidence is, what to run, what may be written. */
export type Scene = {
	/** Folders whose every file is evidence (the store's folder, the Hermes home). */
	evidence: string[];
	steps: Step[];
	/** Paths (or folder prefixes ending in /) an operator-confirmed repair or restore is meant to write. */
	mayWrite?: string[];
	/** The first step whose evidence is measured (default 0): steps before it run beside a writer. */
	measureFrom?: number;
	/** A check after every step ran (debris swept, the right archive kept...). */
	after?: () => string | null;
};

export type Fault = {
	id: string;
	cls: FaultClass;
	outcome: Outcome;
	/** How many times the fault is run (a loop: kill points at random moments); default 1. */
	runs?: number;
	/** In --long mode (default runs * 5). */
	longRuns?: number;
	setup: (tmp: TempSpace, run: number) => Promise<Scene> | Scene;
	notes?: string;
	/** Needs root (mount, mknod, setpriv) or a tool: skipped with the reason when absent. */
	needs?: Array<'root' | 'strace' | 'unzip' | 'script'>;
};

/** A private folder per run; everything made there is removed after the run. */
export type TempSpace = {
	dir: (tag: string) => string;
	/** The run's HOME (no Hermes home in it). */
	home: string;
	/** The run's TMPDIR (it must be empty when the run ends). */
	tmpdir: string;
	/** A small tmpfs (root only), unmounted after the run; null when mounting is not permitted. */
	tmpfs: (options: string) => string | null;
	/** Called after the run, last registered first (stop a writer, unmount...). */
	onCleanup: (fn: () => void | Promise<void>) => void;
};

export type RunResult = {
	args: string[];
	code: number | null;
	signal: string | null;
	stdout: string;
	stderr: string;
	ms: number;
	timedOut: boolean;
	killedOnPurpose: boolean;
};

export type FaultReport = {
	id: string;
	cls: FaultClass;
	outcome: Outcome;
	runs: number;
	/** The outcome measured (the expected one when every run held). */
	got: string;
	evidenceBytesChanged: number;
	failures: string[];
	notes: string;
	skipped?: string;
	ms: number;
};
