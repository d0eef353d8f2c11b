import { describe, expect } from 'vitest';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';
import { emulatorRequests } from './read-support.js';

// How the read commands fail and recover: exit codes of CLI.md, retries against injected faults
// (each scenario on its own emulator, since faults count requests), and the key kept out of output.

const SCENARIOS = {
  plain: [],
  paused: ['--paused'],
  retryAfter: ['--read-faults', '429@1'],
  bare429: ['--read-faults', '429bare@1'],
  error500: ['--read-faults', '500@1'],
  reset: ['--read-faults', 'reset@1'],
  stall: ['--read-faults', 'stall@1'],
  always503: ['--read-faults', '503@1-50'],
} satisfies Record<string, string[]>;

const emulators = {} as Record<keyof typeof SCENARIOS, Harness>;

it.beforeAll(async ({ openForFile }) => {
  await Promise.all(
    Object.entries(SCENARIOS).map(async ([name, args]) => {
      emulators[name as keyof typeof SCENARIOS] = await openForFile({ spawned: { args } });
    }),
  );
}, 60_000);

const tds = (scenario: keyof typeof SCENARIOS, args: string[], env: Record<string, string> = {}) => emulators[scenario].tds(args, { env });

describe.concurrent('exit codes', () => {
  it('a wrong key exits 3 with a hint to check or rotate it', async () => {
    const result = await tds('plain', ['workspaces', '--verbose'], { TDS_API_KEY: 'tds_wrong_key_0000' });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/^tds: list workspaces: .+ \(HTTP 401\)$/m);
    expect(result.stderr).toMatch(/^hint: .*rotate/m);
    expect(result.stderr).not.toContain('tds_wrong_key_0000');
  });

  it('a missing key exits 3 before any request, saying what to set', async () => {
    const result = await tds('plain', ['tables'], { TDS_API_KEY: '' });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/no API key is set\nhint: set TDS_API_KEY, pass --api-key-file/);
  });

  it('a paused subscription exits 5', async () => {
    const result = await tds('paused', ['tables', '--verbose']);
    expect(result.code, result.stderr).toBe(5);
    expect(result.stderr).toMatch(/^tds: list tables: .+ \(HTTP 402\)$/m);
    expect(result.stderr).toMatch(/^hint: .*paused/m);
  });

  it('refuses http:// to a host that is not loopback (exit 2), sending nothing', async () => {
    const result = await tds('plain', ['workspaces', '--base-url', 'http://example.com/v1', '--verbose']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/refusing plain http:\/\/ to example\.com/);
    expect(result.stderr).not.toMatch(/GET /);
  });

  it('reads the key from --api-key-file - (stdin), which wins over TDS_API_KEY', async () => {
    const emulator = emulators.plain;
    // the harness's tds checks that the key read from stdin is not in the output
    const result = await emulator.tds(['workspaces', '--api-key-file', '-', '--format', 'ndjson', '-v'], {
      env: { TDS_API_KEY: 'wrong_key_123456' },
      input: `${emulator.apiKey}\n`,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(3);
  });
});

describe.concurrent('retries', () => {
  it('429 with retry-after: waits it (scaled by TDS_RATE_SCALE), then succeeds', async () => {
    const result = await tds('retryAfter', ['workspaces', '--verbose']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Marketing');
    expect(result.stderr).toMatch(/^GET \/v1\/workspaces 429 \d+ms; retry 1\/5 in 10ms \(rate limited\)$/m);
    expect(result.stderr).toMatch(/^GET \/v1\/workspaces 200 /m);
    const log = await emulatorRequests(emulators.retryAfter);
    expect(log.map((entry) => entry.status)).toEqual([429, 200]);
  });

  it('429 without retry-after: waits the 10 s default (scaled), then succeeds', async () => {
    const result = await tds('bare429', ['workspaces', '--verbose']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/ 429 \d+ms; retry 1\/5 in 100ms \(rate limited\)$/m);
    const [first, second] = await emulatorRequests(emulators.bare429);
    expect(first!.status).toBe(429);
    expect(second!.status).toBe(200);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(95);
  });

  it('500 then success', async () => {
    const result = await tds('error500', ['tables', '--format', 'json', '--verbose']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(9);
    expect(result.stderr).toMatch(/^GET \/v1\/tables 500 \d+ms; retry 1\/5 in \d+ms \(server error\)$/m);
  });

  it('a reset connection then success', async () => {
    const result = await tds('reset', ['schema', 'Leads', '--format', 'ndjson', '--verbose']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^GET \/v1\/tables connection reset \(\w+\) \d+ms; retry 1\/5/m);
  });

  it('a stalled response is abandoned after --timeout and retried', async () => {
    const result = await tds('stall', ['workspaces', '--timeout', '1', '--verbose']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^GET \/v1\/workspaces no response in time \(UND_ERR_HEADERS_TIMEOUT\) \d+ms; retry 1\/5/m);
    const log = await emulatorRequests(emulators.stall);
    expect(log[0]!.fault).toBe('stall');
    expect(log.at(-1)!.status).toBe(200);
  });

  it('gives up with exit 6 after --max-retries, naming what was tried', async () => {
    const result = await tds('always503', ['workspaces', '--max-retries', '2', '--verbose']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toMatch(/^tds: list workspaces: gave up after 3 attempts \(HTTP 503 ×3\): .+ \(HTTP 503\)$/m);
    expect(result.stderr.match(/^GET \/v1\/workspaces 503 /gm)).toHaveLength(3);
    expect(await emulatorRequests(emulators.always503)).toHaveLength(3);
  });
});
