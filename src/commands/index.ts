// src/commands/: each command's options and help (X.ts, loaded with the program) and its action
// (X-action.ts, loaded only when it runs); program.ts assembles them on the root command (root.ts). Shared
// here: a command's connection to the service (connect.ts) and the advice for each failure reason (hints.ts).
// main.ts imports hints.ts and root.ts on their own (this file loads every command's definition): a run
// that names one command builds the root and that command alone (root.ts programFor). A command imports another folder only
// through that folder's index.ts, or, in a definition (X.ts), its options.ts: the start-up surface, what the
// definitions read without the folder's code (npm run lint checks it; test/startup.test.ts, what they load).

export { authCommand } from './auth.js';
export { checkCommand } from './check.js';
export { completionCommand } from './completion.js';
export { configCommand } from './config.js';
export { demoCommand } from './demo.js';
export { diffCommand } from './diff.js';
export { emulatorCommand } from './emulator.js';
export { queryCommand, rowsCommand } from './export.js';
export { hintsOf } from './hints.js';
export { lakeCommand } from './lake.js';
export { schemaCommand, tablesCommand, workspacesCommand } from './listings.js';
export { mcpCommand } from './mcp.js';
export { pushCommand } from './push.js';
export { finishProgram, rootCommand } from './root.js';
export { sqlCommand } from './sql.js';
export { statsCommand } from './stats.js';
export { syncCommand } from './sync.js';
export { webhooksCommand } from './webhooks.js';
