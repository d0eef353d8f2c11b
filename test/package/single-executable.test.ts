import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The file `npm run package` builds, run as a user without Node would: copied alone into a folder that is
// the whole PATH (no node, no npm), with a home and a cache of its own. It unpacks itself at the first run.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = join(ROOT, 'build', `tds-${process.platform}-${process.arch}`);
const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };

let folder: string;
let env: Record<string, string>;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tds-single-'));
  await mkdir(join(folder, 'bin'));
  await copyFile(BUILT, join(folder, 'bin', 'tds'));
  env = { PATH: join(folder, 'bin'), HOME: join(folder, 'home'), XDG_CACHE_HOME: join(folder, 'cache'), TMPDIR: folder, NO_COLOR: '1' };
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function tds(args: string[], options: { cwd?: string; extraEnv?: Record<string, string>; input?: string } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('tds', args, { env: { ...env, ...options.extraEnv }, cwd: options.cwd ?? folder });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

describe('the single executable', () => {
  it('runs with no node on the PATH, unpacking itself once into a private cache folder', async () => {
    await expect(tds(['--version'])).resolves.toMatchObject({ code: 0, stdout: `${version}\n` });
    const unpacked = await readdir(join(folder, 'cache', 'tds'));
    expect(unpacked).toEqual([expect.stringMatching(/^app-[0-9a-f]{16}$/)]);
    expect((await stat(join(folder, 'cache', 'tds'))).mode & 0o777).toBe(0o700);
    await expect(tds(['--help'])).resolves.toMatchObject({ code: 0, stdout: expect.stringContaining('Usage: tds') });
  });

  it('runs the demo', async () => {
    const dir = join(folder, 'demo');
    const result = await tds(['demo', '--dir', dir]);
    expect(result.stderr).not.toMatch(/tds: /);
    expect(result.code, result.stderr).toBe(0);
    for (const line of [
      '$ tds rows Leads -o leads.csv',
      '$ tds push signups.csv --table Inbox --wait',
      '$ tds sync Leads Companies',
      '$ tds diff Leads',
    ]) {
      expect(result.stdout).toContain(line);
    }
    expect(result.stdout).toMatch(/leads +full +\d+ requests +250 read +250 inserted/);
    expect(result.stdout).toContain(`"command": "${join(folder, 'bin', 'tds')}"`);
  });

  it('does the main jobs against its own emulator: list, export, push, sync and SQL', async () => {
    const emulator = spawn('tds', ['emulator', '--port', '0', '--seed', 'demo'], { env, cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const ready = await new Promise<{ baseUrl: string; apiKey: string; webhooks: Record<string, string> }>((resolve, reject) => {
        let text = '';
        emulator.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('\n')) resolve(JSON.parse(text.split('\n')[0]!) as never);
        });
        emulator.on('close', (code) => reject(new Error(`the emulator ended (${code})`)));
      });
      const service = { TDS_BASE_URL: ready.baseUrl, TDS_API_KEY: ready.apiKey };
      const run = (args: string[], input?: string, extraEnv: Record<string, string> = {}): Promise<Ran> =>
        tds(args, { extraEnv: { ...service, ...extraEnv }, ...(input ? { input } : {}) });

      const tables = await run(['tables', '--format', 'ndjson']);
      expect(tables.code, tables.stderr).toBe(0);
      expect(tables.stdout).toContain('"Leads"');
      const csv = await run(['rows', 'Leads', '--format', 'csv', '-n', '5']);
      expect(csv.code, csv.stderr).toBe(0);
      expect(csv.stdout.trim().split('\n')).toHaveLength(6);

      const inbox = JSON.parse(tables.stdout.split('\n').find((line) => line.includes('"Inbox"'))!) as { id: string };
      const webhook = { TDS_WEBHOOK_URL: ready.webhooks[inbox.id]! };
      const pushed = await run(['push', '-', '--input-format', 'ndjson'], '{"Email":"grace@navy.mil"}\n', webhook);
      expect(pushed.code, pushed.stderr).toBe(0);

      const synced = await run(['sync', 'Leads', '--db', join(folder, 'm.duckdb')]);
      expect(synced.code, synced.stderr).toBe(0);
      const counted = await run(['sql', 'SELECT count(*) AS n FROM leads', '--db', join(folder, 'm.duckdb'), '--format', 'csv']);
      expect(counted).toMatchObject({ code: 0, stdout: 'n\n250\n' });
    } finally {
      emulator.kill('SIGTERM');
    }
  });
});
