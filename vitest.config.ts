import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/helpers/slow-first-sequencer.js';

/** Files that run the command program, in this process or as processes. */
const E2E = ['test/e2e/**/*.test.ts', 'test/startup.test.ts'];

/**
 * What both projects share (the global setup, the workers and the reporters are the whole run's, set once).
 * The files leave no state behind, so a worker runs one after another without starting afresh: a new
 * process per file cost about a third of the unit files' time and a fifth of the whole run. What a file
 * sets on the fixture is undone before the next (fixture-defaults.ts).
 */
const PROJECT = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks' as const,
  isolate: false,
  setupFiles: ['test/helpers/fixture-defaults.ts'],
  // .ci/run runs a failed test once more (TDS_TEST_RETRY=1), so that one slowed past its timeout by a
  // loaded machine does not keep a change from landing; the log names it flaky. Our own runs retry none.
  retry: Number(process.env.TDS_TEST_RETRY ?? 0),
};

export default defineConfig({
  test: {
    // no test reads the developer's environment or config (TDS_*, ~/.config/tds)
    globalSetup: ['test/helpers/hermetic-global-setup.ts'],
    // vitest's default is one worker fewer than the cores: a single one on a 2-core machine. The e2e files
    // spend much of their time waiting (on emulator processes, timers, the network): with one worker per
    // core the 2 cores were busy 69 % of the run, with one more 85 % and the run a sixth shorter.
    maxWorkers: availableParallelism() + 1,
    // the slowest files first, with or without vitest's record of the last run (test/helpers/slow-first-sequencer.ts)
    sequence: { sequencer: SlowFirstSequencer },
    // CI's log names every test with its result (a skipped or missing test shows), and if the run does not
    // exit after the tests, says which handles keep it alive, then ends with what failed or was flaky; at
    // a terminal, the compact default.
    reporters: process.env.CI ? ['verbose', 'hanging-process', './test/helpers/outcome-reporter.ts'] : ['default'],
    projects: [
      {
        test: { ...PROJECT, name: 'unit', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...E2E, 'test/package/**'] },
      },
      { test: { ...PROJECT, name: 'e2e', include: E2E } },
    ],
  },
});
