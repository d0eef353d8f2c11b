// src/check/: `tds check`. Its surface: runChecks (run-checks.ts: every check of a checks file against
// the mirror, each kind's figure from one DuckDB scan per table (check-figures.ts), the schema contract
// (schema-contract.ts), the results kept in `_tds_checks` (check-history.ts)), the checks file
// (checks-file.ts), the results and their tally (check-result.ts), the outputs (check-output.ts: table,
// JSON, JUnit) and the notifications of status changes (notify.ts), which `tds sync --follow` sends too.

export { checksText, type CheckFormat } from './check-output.js';
export { ageText, observedText, tally, tallyText, type CheckResult } from './check-result.js';
export { DEFAULT_CHECKS_FILE, parseChecks, readChecksFile, type TableChecks } from './checks-file.js';
export { FollowNotifier, notifyChanges, notifyTarget } from './notify.js';
export { evaluateChecks, runChecks, type TableVerified } from './run-checks.js';
