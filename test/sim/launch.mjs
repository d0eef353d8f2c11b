// `npm run sim -- ARGS`: runs the simulator (test/sim/sim.run.ts) under vitest, which runs the TypeScript
// as the tests do, with ARGS passed in SIM_ARGS; exits with vitest's status (1 on a violation).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const USAGE = `usage: npm run sim -- [--seed N] [--steps K] [--seeds S | --minutes M] [--keep-going] [--verbose]
       npm run sim -- --replay FILE [--shrink] [--shrink-minutes M]

Histories generated from seeds N, N+1, … (K steps each; S seeds, or as many as fit in M minutes), each
against a fresh emulator, every invariant checked after every step. A violation is shrunk (--no-shrink:
not), written under .sim/ and printed with the command that replays it; the run exits 1 (--keep-going:
after the next seeds). A clean run ends with: sim: K steps, S seeds, I invariant checks, 0 violations.
--replay FILE runs one history file (test/sim/histories/, test/sim/open/); --shrink shrinks it further.
See docs/development.md, "The simulator".
`;
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const vitest = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
const child = spawn(process.execPath, [vitest, 'run', '--config', 'test/sim/vitest.sim.config.ts'], {
  stdio: 'inherit',
  env: { ...process.env, SIM_ARGS: JSON.stringify(process.argv.slice(2)) },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
