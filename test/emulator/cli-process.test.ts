import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulatorProcess, type EmulatorProcess } from '../helpers/emulator-process.js';
import { RATE_SCALE } from '../helpers/rate-scale.js';
import { runInProcess } from '../helpers/run-in-process.js';
import { spawnTds } from '../helpers/spawn-tds.js';

// The real `tds emulator` (built dist/, forked): ready line, --data, --verbose, signals; its flags' refusals in-process.

async function call(emu: { baseUrl: string; apiKey: string }, path: string, init: { method?: string; body?: string; key?: boolean } = {}) {
  const url = path.startsWith('http') ? path : `${emu.baseUrl}${path}`;
  const headers: Record<string, string> = init.key === false ? {} : { authorization: `Bearer ${emu.apiKey}` };
  if (init.body) headers['content-type'] = 'application/json';
  const reply = await request(url, { method: (init.method ?? 'GET') as 'GET', headers, body: init.body });
  const text = await reply.body.text();
  return { status: reply.statusCode, body: text ? JSON.parse(text) : undefined };
}

const exited = (emu: EmulatorProcess) => emu.stop().then(() => emu.child.exitCode);

describe('tds emulator (process)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tds-emulator-cli-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('prints exactly one JSON ready line on stdout and exits 0 on SIGTERM and SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const run = spawnTds(['emulator', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
      const { child } = run;
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', () => {
          if (run.stdout().includes('\n')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`tds emulator exited with ${code} before its ready line; stderr:\n${run.stderr()}`)));
      });
      await ready;
      const info = JSON.parse(run.stdout());
      expect(Object.keys(info)).toEqual(['baseUrl', 'apiKey', 'webhooks']);
      expect(info.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect((await call(info, '/workspaces')).status).toBe(200);
      const code = await new Promise<number | null>((resolve) => {
        child.once('exit', (exitCode) => resolve(exitCode));
        child.kill(signal);
      });
      expect(code).toBe(0);
      expect(run.stdout().trim().split('\n')).toHaveLength(1);
      expect(run.stderr()).toBe('');
    }
  });

  it('on a terminal, says where it listens, the two export lines to paste, and how to stop it', async () => {
    const run = spawnTds(['emulator', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { TDS_FORCE_TTY: '1' } });
    const { child } = run;
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', () => {
        if (run.stdout().includes('Ctrl-C')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`tds emulator exited with ${code}; stderr:\n${run.stderr()}`)));
    });
    const text = run.stdout();
    const baseUrl = /^The emulator listens on (http:\/\/127\.0\.0\.1:\d+\/v1)$/m.exec(text)?.[1];
    expect(baseUrl, text).toBeDefined();
    expect(text).toMatch(new RegExp(`^  export TDS_BASE_URL=${baseUrl!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'));
    const apiKey = /^ {2}export TDS_API_KEY=(\S+)$/m.exec(text)?.[1];
    expect((await call({ baseUrl: baseUrl!, apiKey: apiKey! }, '/workspaces')).status).toBe(200);
    // each webhook-fed table's webhook, which every push needs
    const hooks = [...text.matchAll(/^ {2}(\S.*?) +(http:\/\/\S+\/webhook\/\S+)$/gm)].map(([, table, url]) => ({ table, url: url! }));
    expect(hooks.map(({ table }) => table)).toEqual(['Marketing / Signups', 'Marketing / Inbox']);
    for (const { url } of hooks) {
      const reply = await request(url, { method: 'HEAD' });
      await reply.body.dump();
      expect(reply.statusCode).toBe(200);
    }
    expect(text).toMatch(/^Stop it with Ctrl-C\./m);
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (exitCode) => resolve(exitCode));
      child.kill('SIGINT');
    });
    expect(code).toBe(0);
  });

  it('logs requests on stderr with --verbose, never a key or a webhook id', async () => {
    const emu = await startEmulatorProcess(['--verbose']);
    const webhook = Object.values(emu.webhooks)[0]!;
    await call(emu, '/workspaces');
    await call(emu, `/workspaces?api_key=${emu.apiKey}`, { key: false });
    await call(emu, webhook, { method: 'POST', body: '{"email":"v@x.example"}', key: false });
    expect(await exited(emu)).toBe(0);
    const log = emu.stderr();
    expect(log).toMatch(/^GET \/v1\/workspaces 200 [\d.]+ms$/m);
    expect(log).toMatch(/^GET \/v1\/workspaces\?api_key=\*\*\* 401 /m);
    expect(log).toMatch(/^POST \/v1\/webhook\/\*\*\* 200 /m);
    expect(log).not.toContain(emu.apiKey);
    expect(log).not.toContain(webhook.split('/').pop());
  });

  it('saves --data on exit and loads it on the next start', async () => {
    const file = join(dir, 'state.json');
    const first = await startEmulatorProcess(['--data', file, '--ingest-delay', '600000']);
    const inboxId = ((await call(first, '/tables')).body.tables as Array<{ id: string; name: string }>).find((t) => t.name === 'Inbox')!.id;
    const webhook = first.webhooks[inboxId]!;
    await call(first, webhook, { method: 'POST', body: '[{"email":"a@x.example"},{"email":"b@x.example"}]', key: false });
    expect(await exited(first)).toBe(0);
    const second = await startEmulatorProcess(['--data', file]);
    try {
      const tables = (await call(second, '/tables')).body.tables as Array<{ id: string; rowCount: number }>;
      expect(tables.find((table) => table.id === inboxId)!.rowCount).toBe(2);
      expect(second.webhooks).toEqual(
        Object.fromEntries(
          Object.entries(first.webhooks).map(([id, url]) => [
            id,
            url.replace(new URL(first.baseUrl).origin, new URL(second.baseUrl).origin),
          ]),
        ),
      );
    } finally {
      await second.stop();
    }
  });

  it('passes --faults to both surfaces, the specific flags overriding it, and --paused', async () => {
    const emu = await startEmulatorProcess(['--faults', '503@1', '--webhook-faults', '', '--paused']);
    try {
      expect((await call(emu, '/workspaces')).status).toBe(503);
      expect((await call(emu, '/workspaces')).status).toBe(402);
      const webhook = Object.values(emu.webhooks)[0]!;
      expect((await call(emu, webhook, { method: 'POST', body: '{"a":1}', key: false })).status).toBe(200);
    } finally {
      await emu.stop();
    }
  });

  it('takes its rate scale from TDS_RATE_SCALE, as the client does, so one setting scales both sides', async () => {
    // a scale of 20: the row-read window (60 a minute) lasts 3 s, not 60 s
    const emu = await startEmulatorProcess([], { TDS_RATE_SCALE: String(RATE_SCALE / 5) });
    try {
      const tables = (await call(emu, '/tables')).body.tables as Array<{ id: string; name: string }>;
      const rows = `/tables/${tables.find((table) => table.name === 'Leads')!.id}/rows?limit=1`;
      const statuses = await Promise.all(Array.from({ length: 61 }, async () => (await call(emu, rows)).status));
      expect(statuses.filter((status) => status === 429)).toHaveLength(1);
      // the window passes in 3 s (60 s unscaled would outlast the wait)
      await vi.waitFor(async () => expect((await call(emu, rows)).status).toBe(200), { timeout: 10_000, interval: 200 });
    } finally {
      await emu.stop();
    }
  });

  it.each([
    [['--faults', 'boom@1'], /--faults: fault spec item "boom@1" is not valid/],
    [['--read-faults', '500:2'], /probability/],
    [['--port', 'abc'], /--port must be a whole number/],
    [['--seed', 'nope'], /Allowed choices are demo, empty/],
    [['--rate-scale', '0'], /--rate-scale must be a number/],
    [['--rows', '-5'], /--rows must be a whole number/],
    [['--bogus'], /unknown option/],
    [['--churn', 'grow:1/s'], /--churn: churn spec item "grow:1\/s" is not valid/],
    [['--churn', 'add:1/s,table=Nope', '--port', '0'], /--churn: churn spec: no table "Nope"/],
    [['--action-delay', '-1'], /--action-delay must be a whole number/],
  ])('exits 2 on bad flags: %j', async (args, message) => {
    const result = await runInProcess(['emulator', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('passes --action-delay, --churn and --admin (admin routes on a non-loopback bind)', async () => {
    const emu = await startEmulatorProcess(['--host', '0.0.0.0', '--admin', '--action-delay', '0', '--churn', 'add:40/s,table=Companies']);
    const local = { ...emu, baseUrl: emu.baseUrl.replace('0.0.0.0', '127.0.0.1') };
    try {
      const tables = (await call(local, '/tables')).body.tables as Array<{ id: string; name: string; rowCount: number }>;
      const inbox = tables.find((table) => table.name === 'Inbox')!;
      const added = await call(local, local.baseUrl.replace('/v1', `/_emulator/tables/${inbox.id}/rows`), {
        method: 'POST',
        body: JSON.stringify({ rows: [{ cells: { Email: 'z@zeta.example' } }] }),
        key: false,
      });
      expect(added.status).toBe(201);
      const statuses = Object.values(added.body.rows[0].cells as Record<string, { status?: string }>).map((cell) => cell.status);
      expect(statuses.filter((status) => status !== undefined)).toHaveLength(2);
      expect(statuses.some((status) => status === 'queued' || status === 'waiting' || status === 'running')).toBe(false);
      const companies = tables.find((table) => table.name === 'Companies')!;
      await vi.waitFor(
        async () => {
          const now = (await call(local, '/tables')).body.tables as typeof tables;
          expect(now.find((table) => table.id === companies.id)!.rowCount).toBeGreaterThan(companies.rowCount + 5);
        },
        { timeout: 5_000, interval: 100 },
      );
    } finally {
      expect(await exited(emu)).toBe(0);
    }
    expect(emu.stderr()).toMatch(/warning: binding 0\.0\.0\.0, not a loopback address: .* and --admin lets them change its data/);
  });

  it('exits 2 on a --data file that is not an emulator state', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, '[1, 2]');
    const result = await runInProcess(['emulator', '--port', '0', '--data', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/not an emulator state file/);
  });

  it('exits 2 when the port is taken', async () => {
    const emu = await startEmulatorProcess();
    try {
      const port = new URL(emu.baseUrl).port;
      const result = await runInProcess(['emulator', '--port', port]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/port \d+ is in use/);
    } finally {
      await emu.stop();
    }
  });
});
