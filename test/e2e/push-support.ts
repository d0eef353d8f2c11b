import { expect, onTestFinished } from 'vitest';
import { test, type HarnessOptions } from '../helpers/emulator-fixture.js';
import { startScriptedServer, WEBHOOK_PATH, type Script, type ScriptedServer } from '../helpers/scripted-server.js';
import { PUSH_EMULATOR, withWebhooks, type PushHarness } from '../push/helpers/emulator.js';

// The push end-to-end tests stand on the suite's fixture (emulator-fixture.ts) with the push tests'
// emulator (PUSH_EMULATOR) and its Inbox and Signups webhooks at hand; tds runs in-process in the
// harness's folder, spawned (harness.spawn) only where a test kills the run or holds its journal.

/** The fixture with `openHarness` (a push harness of the test's own, closed after it) and `pushHarness` (one opened for the test). */
export const pushTest = test.extend<{ openHarness: (options?: HarnessOptions) => Promise<PushHarness>; pushHarness: PushHarness }>({
  openHarness: async ({ open }, use) => use(async (options = {}) => withWebhooks(await open({ ...PUSH_EMULATOR, ...options }))),
  pushHarness: async ({ openHarness }, use) => use(await openHarness()),
});

/** A webhook the test scripts (helpers/scripted-server.ts), at `url`, closed when the test ends. */
export async function scriptedWebhook(script: Script): Promise<ScriptedServer & { url: string }> {
  const server = await startScriptedServer(script);
  onTestFinished(() => server.close());
  return Object.assign(server, { url: `${server.origin}${WEBHOOK_PATH}` });
}

/** The limits a push harness's emulator enforces and tds is told of (`tds config set`), as a user would. */
export interface KnownLimits {
  webhookBudget?: number;
  tableCapacity?: number;
}

/** A push harness (with `options`) whose emulator enforces `limits`, each saved in tds's config too. */
export async function harnessWithLimits(
  openHarness: (options?: HarnessOptions) => Promise<PushHarness>,
  limits: KnownLimits,
  options: HarnessOptions = {},
): Promise<PushHarness> {
  const harness = await openHarness({ ...options, ...limits });
  const keys = { webhookBudget: 'webhook-budget', tableCapacity: 'table-capacity' } as const;
  for (const [limit, value] of Object.entries(limits) as Array<[keyof KnownLimits, number]>) {
    const saved = await harness.tds(['config', 'set', keys[limit], String(value)]);
    expect(saved.code, saved.stderr).toBe(0);
  }
  return harness;
}
