import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // no test reads the developer's environment or config (TDS_*, ~/.config/tds)
    globalSetup: ['test/helpers/hermetic-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: a single one on a 2-core machine. The e2e files
    // spend most of their time waiting (on emulator processes, timers, the network), so one per core.
    maxWorkers: Math.max(2, availableParallelism()),
    // CI's log names every test with its result (a skipped or missing test shows), and if the run does not
    // exit after the tests, says which handles keep it alive; at a terminal, the compact default.
    reporters: process.env.CI ? ['verbose', 'hanging-process'] : ['default'],
  },
});
