import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // CI's log names every test with its result (a skipped or missing test shows), and if the run does not
    // exit after the tests, says which handles keep it alive; at a terminal, the compact default.
    reporters: process.env.CI ? ['verbose', 'hanging-process'] : ['default'],
  },
});
