import { describe, expect } from 'vitest';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// `tds auth check` / `tds doctor`: one cheap request, and an explanation of what is wrong.

let emulator: Harness;
let paused: Harness;
it.beforeAll(async ({ openForFile }) => {
  [emulator, paused] = await Promise.all([openForFile({ spawned: {} }), openForFile({ spawned: { args: ['--paused'] } })]);
});

describe.concurrent('tds auth check', () => {
  it('reports where the settings came from and that all is well (exit 0)', async () => {
    const result = await emulator.tds(['auth', 'check', '--verbose']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`base URL  ${emulator.baseUrl} (from TDS_BASE_URL)`);
    expect(result.stderr).toMatch(/^API key {3}\*{4}\w{4} \(from TDS_API_KEY\)$/m);
    expect(result.stderr).toMatch(/^ok +key accepted, subscription active; the organization has 3 workspaces/m);
    expect(result.stderr.match(/^GET /gm)).toHaveLength(1);
  });

  it('`tds doctor` is the same check', async () => {
    const result = await emulator.tds(['doctor']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^ok /m);
  });

  it('no base URL: exit 2, saying what to set', async () => {
    const result = await emulator.tds(['auth', 'check'], { env: { TDS_BASE_URL: undefined } });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^base URL {2}not set$/m);
    expect(result.stderr).toMatch(/^hint: pass --base-url URL, set TDS_BASE_URL/m);
  });

  it('no key: exit 3', async () => {
    const result = await emulator.tds(['auth', 'check'], { env: { TDS_API_KEY: undefined } });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/^tds: no API key is set$/m);
  });

  it('a refused key: exit 3', async () => {
    const result = await emulator.tds(['auth', 'check'], { env: { TDS_API_KEY: 'tds_rotated_key_0000' } });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/^tds: the service refused the API key \(HTTP 401\)$/m);
    expect(result.stderr).toMatch(/^hint: .*rotate/m);
  });

  it('a paused subscription: exit 5', async () => {
    const result = await paused.tds(['auth', 'check']);
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(/^tds: the API key is valid but the organization's subscription is paused \(HTTP 402\)$/m);
  });

  it('a refused connection: exit 6, asking whether the service runs there', async () => {
    const result = await emulator.tds(['auth', 'check', '--max-retries', '0'], { env: { TDS_BASE_URL: 'http://127.0.0.1:9/v1' } });
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(/^tds: cannot reach the service: .*nothing listens on 127\.0\.0\.1:9 — is `tds emulator` running\?$/m);
    expect(result.stderr).toMatch(/^hint: is the service running at that address\? the base URL comes from TDS_BASE_URL$/m);
  });
});
