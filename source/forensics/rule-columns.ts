/**
 * Columns Hermes' rules decide on, present in every generation hfx knows (v19 onward:
 * docs/hermes-rules.md, schema). A store without one is read with that column as NULL, so a
 * verdict that needs it would silently come out "fine": instead each absent one is a finding that
 * names the column and what cannot be decided. (Columns a generation legitimately lacks, such as
 * last_activity_at before v25, choose the rule set instead: generations.ts.)
 */

/** One absent column and what cannot be decided without it. */
export type MissingColumn = {column: string; undecided: string};

type RuleColumn = {table: 'sessions' | 'messages' | 'gateway_routing'; column: string; undecided: string};

const RESUME = 'so what a restart resumes cannot be decided';

export const RULE_COLUMNS: readonly RuleColumn[] = [
	{
		table: 'messages',
		column: 'timestamp',
		undecided:
			'the newest message of each chat cannot be placed, so rollback risk and ' +
			"an orphan's contiguity with its donor cannot be decided",
	},
	{table: 'sessions', column: 'ended_at', undecided: `which sessions have ended cannot be told, ${RESUME}`},
	{
		table: 'sessions',
		column: 'end_reason',
		undecided: `why a session ended (recoverable or not) cannot be told, ${RESUME}`,
	},
	{
		table: 'sessions',
		column: 'parent_session_id',
		undecided:
			"lineage (compression, branches) cannot be followed, so an orphan's " +
			"parent and a chat's newest conversation cannot be decided",
	},
	{
		table: 'sessions',
		column: 'model_config',
		undecided:
			'branch, delegation and reset markers cannot be read, so which keyless rows are orphans cannot be decided',
	},
	{
		table: 'sessions',
		column: 'user_id',
		undecided: `a keyless row cannot be matched to its chat (restart recovery matches on user_id), ${RESUME}`,
	},
	{
		table: 'sessions',
		column: 'chat_id',
		undecided: `a keyless row cannot be matched to its chat (restart recovery matches on chat_id), ${RESUME}`,
	},
	{
		table: 'sessions',
		column: 'chat_type',
		undecided: `a keyless row cannot be matched to its chat (restart recovery matches on chat_type), ${RESUME}`,
	},
	{
		table: 'sessions',
		column: 'thread_id',
		undecided: `a keyless row cannot be matched to its chat (restart recovery matches on thread_id), ${RESUME}`,
	},
	{table: 'gateway_routing', column: 'session_key', undecided: `no routing entry can be read, ${RESUME}`},
	{
		table: 'gateway_routing',
		column: 'entry_json',
		undecided: `the session each routing entry names cannot be read, ${RESUME}`,
	},
];

/**
 * The rule columns a store lacks, given the columns of its tables (a table that is absent has
 * none to lack: gateway_routing is optional, sessions and messages are checked before this).
 */
export function missingRuleColumns(
	columnsOf: (table: RuleColumn['table']) => ReadonlySet<string> | null,
): MissingColumn[] {
	return RULE_COLUMNS.flatMap(({table, column, undecided}) => {
		const columns = columnsOf(table);
		return columns === null || columns.has(column) ? [] : [{column: `${table}.${column}`, undecided}];
	});
}
