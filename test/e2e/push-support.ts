import { test, type HarnessOptions } from '../helpers/emulator-fixture.js';
import { PUSH_EMULATOR, withWebhooks, type PushHarness } from '../push/helpers/emulator.js';

// The push end-to-end tests stand on the suite's fixture (emulator-fixture.ts) with the push tests'
// emulator (PUSH_EMULATOR) and its Inbox and Signups webhooks at hand; tds runs in-process in the
// harness's folder, spawned (harness.spawn) only where a test kills the run or holds its journal.

/** The fixture with `openHarness` (a push harness of the test's own, closed after it) and `pushHarness` (one opened for the test). */
export const pushTest = test.extend<{ openHarness: (options?: HarnessOptions) => Promise<PushHarness>; pushHarness: PushHarness }>({
  openHarness: async ({ open }, use) => use(async (options = {}) => withWebhooks(await open({ ...PUSH_EMULATOR, ...options }))),
  pushHarness: async ({ openHarness }, use) => use(await openHarness()),
});
