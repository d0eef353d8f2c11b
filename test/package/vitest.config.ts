import { defineConfig } from 'vitest/config';

// `npm run test:package`: the single executable (build/, made by `npm run package`) on a PATH without node.
// Apart from `npm test`, which it would lengthen by the build; .ci/run runs both.
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    globalSetup: ['test/helpers/hermetic-global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
