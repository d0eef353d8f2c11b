// `npm run sim -- ARGS`: runs the simulator (test/sim/sim.run.ts) under vitest, which runs the TypeScript
// as the tests do, with ARGS passed in SIM_ARGS; exits with vitest's status (1 on a violation).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const vitest = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
const child = spawn(process.execPath, [vitest, 'run', '--config', 'test/sim/vitest.sim.config.ts'], {
  stdio: 'inherit',
  env: { ...process.env, SIM_ARGS: JSON.stringify(process.argv.slice(2)) },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
