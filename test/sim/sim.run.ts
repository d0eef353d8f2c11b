import { test } from 'vitest';
import { parseSimArgs, simulate } from './sim.js';

// The entry of `npm run sim` (launch.mjs runs vitest on this file alone, with the arguments in SIM_ARGS).
// The outcome is what sim.ts prints; a violation fails this test, so vitest exits 1.

test('sim', { timeout: 0 }, async () => {
  const print = (line: string): void => void process.stdout.write(`${line}\n`);
  let status: number;
  try {
    status = await simulate(parseSimArgs(JSON.parse(process.env.SIM_ARGS ?? '[]') as string[]), print);
  } catch (error) {
    // the reporter prints nothing: a failure of the simulator itself is said here
    print(`sim: the simulator failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    throw error;
  }
  if (status !== 0) throw new Error('the simulator found a violation');
});
