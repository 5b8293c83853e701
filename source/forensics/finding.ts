/**
 * A finding: what an operator must know or do about one session or chat, in the words every surface
 * (scan, the TUI's banner and Findings, watch events) prints. Plain data.
 */

export type Severity = 'critical' | 'warning' | 'info';

export type Finding = {
	severity: Severity;
	kind:
		| 'rollback-happened'
		| 'reap-churn'
		| 'rollback-risk'
		| 'orphan-adoptable'
		| 'orphan-refused'
		| 'repair-routing-crash'
		| 'after-upgrade'
		| 'stale-routing-entry'
		| 'corrupt-timestamp'
		| 'missing-column'
		| 'write-halt'
		| 'unreplayed-turns'
		| 'keyed-null-chat-id'
		| 'stale-explicit-close'
		| 'phantom-unknown-row'
		| 'foreign-profile-chats';
	/** The session or key the finding is about. */
	subject: string;
	title: string;
	detail: string;
	/** For a rollback risk: what the operator will see if the gateway restarts now (its own line on every surface). */
	ifRestarted?: string;
	next: string;
};
