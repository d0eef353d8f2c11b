import { defineConfig } from 'vitest/config';

// `npm run sim`: vitest runs test/sim/sim.run.ts alone, in one process, and prints nothing of its own
// (the simulator prints its report); the suite's hermetic setup (no TDS_* of yours, a temp folder of the run's).
export default defineConfig({
  test: {
    include: ['test/sim/sim.run.ts'],
    globalSetup: ['test/helpers/hermetic-global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    disableConsoleIntercept: true,
    reporters: [{}],
  },
});
