/**
 * Checks one `hfx scan --json` against a fixture's expected.json (test/fixtures/<name>/): the exit
 * code (1: findings), every expected orphan's verdict, donor, evidence and refusal kind, every
 * expected chat's routing, and that no listed non-orphan is reported as one. Plain JavaScript for
 * any Node >= 20 (scripts/ci/install-paths.sh runs it with the Node of the path under test).
 *   node scripts/ci/expect-scan.mjs EXPECTED_JSON SCAN_JSON EXIT_CODE
 */
import fs from 'node:fs';

const [expectedFile, scanFile, exitCode] = process.argv.slice(2);
const expected = JSON.parse(fs.readFileSync(expectedFile, 'utf8'));
const scan = JSON.parse(fs.readFileSync(scanFile, 'utf8'));
const problems = [];
const same = (what, actual, wanted) => {
	if (wanted !== undefined && actual !== wanted) {
		problems.push(`${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(wanted)}`);
	}
};

same('exit code', Number(exitCode), 1);
same('exitCode in the JSON', scan.exitCode, 1);
const orphans = new Map(scan.orphans.map(orphan => [orphan.orphanId, orphan]));
for (const [id, want] of Object.entries(expected.orphans ?? {})) {
	const got = orphans.get(id);
	if (!got) {
		problems.push(`orphan ${id}: not reported`);
		continue;
	}

	same(`orphan ${id} verdict`, got.verdict, want.verdict);
	same(`orphan ${id} donor`, got.donorId, want.donor);
	same(`orphan ${id} evidence`, got.evidence, want.evidence);
	same(`orphan ${id} session key`, got.sessionKey, want.session_key);
	same(`orphan ${id} refusal kind`, got.reasonKind, want.reason_kind);
}

for (const id of expected.not_orphans ?? []) {
	if (orphans.has(id)) {
		problems.push(`${id}: reported as an orphan, expected not`);
	}
}

const routing = new Map(scan.routing.map(chat => [chat.sessionKey, chat]));
for (const [key, want] of Object.entries(expected.routing ?? {})) {
	const got = routing.get(key);
	if (!got) {
		problems.push(`chat ${key}: not reported`);
		continue;
	}

	same(`chat ${key} resolves to`, got.restartResolvesTo, want.resolves_to);
	same(`chat ${key} newest activity in`, got.newestActivityIn, want.newest_activity_in);
	same(`chat ${key} rollback risk`, got.rollbackRisk, want.rollback_risk);
}

if (problems.length > 0) {
	process.stderr.write(
		`${scanFile} disagrees with ${expectedFile}:\n${problems.map(line => `  ${line}`).join('\n')}\n`,
	);
	process.exit(1);
}

process.stdout.write(
	`  scan agrees with ` +
		`expected.json: ${Object.keys(expected.orphans ?? {}).length} orphans` +
		`, ${Object.keys(expected.routing ?? {}).length} chats, ` +
		`exit 1\n`,
);
