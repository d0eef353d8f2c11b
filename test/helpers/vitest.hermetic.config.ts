import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

// `npx vitest run --config test/helpers/vitest.hermetic.config.ts [FILES]` (from the repository's folder):
// the suite as `npm test` runs it, in the environment of a developer whose TDS_* variables and default
// profile point at a live server (hermetic-check-setup.ts); the run fails if any request reaches it.

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // first the developer's environment, then the suite's own setup, which must make it unreachable
    globalSetup: ['test/helpers/hermetic-check-setup.ts', ...[base.test?.globalSetup ?? []].flat()],
  },
});
