import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorProcess, type EmulatorProcess } from './helpers/emulator-process.js';
import { spawnTds } from './helpers/spawn-tds.js';

// Each command loads only its own modules: `tds --version` not even the command tree; building the tree
// (--help, completion) loads no command's implementation; `tds rows` loads the export path but not push or
// the emulator; `tds sql` neither the terminal table nor diff; `tds mcp` answers `initialize` without the
// code of its tools. A module load hook (node --import) lists every module the real bin/tds.js imports
// (DuckDB's bindings are required, not imported: Node does not read their forty files for export names).

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const IMPLEMENTATIONS = [
  /^dist\/commands\/.*-actions?\.js$/,
  /^dist\/push\/run-push\.js$/,
  /^dist\/mirror\/sync-run\.js$/,
  /^dist\/duckdb\/engine\.js$/,
  /^dist\/emulator\/start-emulator\.js$/,
  /^dist\/config\/settings\.js$/,
  /^dist\/http\/client\.js$/,
  /^dist\/output\/table\.js$/,
];
const HEAVY_PACKAGES = /^node_modules\/(undici|zod|ora|cli-table3|node-emoji|@duckdb|@modelcontextprotocol|csv-parse|yaml)\//;

let dir: string;
let hook: string;
let runs = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-startup-'));
  await writeFile(
    join(dir, 'hooks.mjs'),
    `import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, next) { appendFileSync(log, url + '\\n'); return next(url, context); }
`,
  );
  await writeFile(
    join(dir, 'register.mjs'),
    `import { register } from 'node:module';
register('./hooks.mjs', import.meta.url, { data: { log: process.env.TDS_TEST_LOAD_LOG } });
`,
  );
  hook = pathToFileURL(join(dir, 'register.mjs')).href;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs bin/tds.js and returns its exit code and the modules it loaded, as paths relative to the repository. */
async function loadedBy(
  args: string[],
  env: Record<string, string> = {},
  input?: string,
): Promise<{ code: number; loaded: string[]; stdout: string }> {
  const log = join(dir, `loaded-${(runs += 1)}.txt`);
  await writeFile(log, '');
  const run = spawnTds(args, {
    nodeOptions: ['--import', hook],
    env: { TDS_TEST_LOAD_LOG: log, TDS_CONFIG_DIR: dir, ...env },
    ...(input !== undefined ? { input } : {}),
  });
  const code = (await run.exit) ?? 1;
  const loaded = (await readFile(log, 'utf8'))
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => fileURLToPath(url).slice(ROOT.length));
  return { code, loaded, stdout: run.stdout() };
}

const implementations = (loaded: string[]): string[] => loaded.filter((path) => IMPLEMENTATIONS.some((re) => re.test(path)));
const heavyPackages = (loaded: string[]): string[] => loaded.filter((path) => HEAVY_PACKAGES.test(path));

describe.concurrent('start-up', () => {
  it('names implementation modules that exist: a renamed one would let the checks below pass whatever is loaded', async () => {
    // From src/, not dist/: a build folder can keep files of modules that no longer exist.
    const built = (await readdir(join(ROOT, 'src'), { recursive: true }))
      .filter((path) => path.endsWith('.ts'))
      .map((path) => `dist/${path.replaceAll('\\', '/').replace(/\.ts$/, '.js')}`);
    for (const pattern of IMPLEMENTATIONS) {
      const matches = built.filter((path) => pattern.test(path));
      expect(matches, String(pattern)).not.toEqual([]);
    }
  });

  it('tds --version answers without building the command tree', async () => {
    const { code, loaded, stdout } = await loadedBy(['--version']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    // main.ts's own imports only: no command's definition (hints.js is main's advice for a failure)
    expect(loaded.filter((path) => path === 'dist/program.js' || /^dist\/commands\/(?!hints\.js$)/.test(path))).toEqual([]);
    expect(heavyPackages(loaded)).toEqual([]);
  });

  it.each([
    ['--help'],
    ['rows', '--help'],
    ['push', '--help'],
    ['sync', '--help'],
    ['sql', '--help'],
    ['config', 'path'],
    ['completion', 'bash'],
  ])('tds %s builds the command tree without loading any implementation', async (...args: string[]) => {
    const { code, loaded } = await loadedBy(args);
    expect(code).toBe(0);
    expect(loaded).toContain('dist/program.js');
    expect(implementations(loaded)).toEqual([]);
    expect(heavyPackages(loaded)).toEqual([]);
  });

  describe('tds rows', () => {
    let emulator: EmulatorProcess;
    beforeAll(async () => {
      emulator = await startEmulatorProcess();
    });
    afterAll(() => emulator?.stop());

    it('loads the export path, not push, the emulator or the table output', async () => {
      const { code, loaded } = await loadedBy(['rows', 'Leads', '-n', '2'], {
        TDS_BASE_URL: emulator.baseUrl,
        TDS_API_KEY: emulator.apiKey,
      });
      expect(code).toBe(0);
      expect(loaded).toContain('dist/commands/export-action.js');
      expect(implementations(loaded).sort()).toEqual(['dist/commands/export-action.js', 'dist/config/settings.js', 'dist/http/client.js']);
      expect(loaded.filter((path) => /^node_modules\/(ora|cli-table3|node-emoji)\//.test(path))).toEqual([]);
    });
  });

  it('tds sql on a small mirror loads neither the terminal table nor diff, and DuckDB without its export names', async () => {
    const db = join(dir, 'small.duckdb');
    const made = await loadedBy(['sql', '--write', 'CREATE TABLE leads AS SELECT range AS n FROM range(250)', '--db', db]);
    expect(made.code).toBe(0);
    const { code, loaded, stdout } = await loadedBy(['sql', 'SELECT count(*) AS n FROM leads', '--db', db, '--format', 'csv']);
    expect(code).toBe(0);
    expect(stdout).toBe('n\n250\n');
    expect(loaded).toContain('dist/mirror/run-sql.js');
    expect(loaded.filter((path) => /^dist\/(output\/(record-)?table|mirror\/diff\/)/.test(path))).toEqual([]);
    expect(loaded.filter((path) => /^node_modules\/(cli-table3|node-emoji|emojilib|@duckdb)\//.test(path))).toEqual([]);
  });

  it('tds mcp answers initialize without loading its tools’ code (the checks, stats, diff, DuckDB)', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'startup-test', version: '1' } },
    };
    const { code, loaded, stdout } = await loadedBy(['mcp', '--db', join(dir, 'none.duckdb')], {}, `${JSON.stringify(initialize)}\n`);
    expect(code).toBe(0);
    expect(stdout).toContain('"serverInfo"');
    expect(loaded).toContain('dist/mcp/serve.js');
    expect(loaded.filter((path) => /^dist\/(check|stats|lake)\/|^dist\/mirror\/diff\//.test(path))).toEqual([]);
    expect(loaded.filter((path) => /^node_modules\/(yaml|cli-table3|node-emoji|csv-stringify|@duckdb)\//.test(path))).toEqual([]);
  });
});
