import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helpProgram, programFor, SINGLE_COMMANDS } from '../src/commands/root.js';
import { buildProgram } from '../src/program.js';
import { memoryContext, type MemoryContextOptions } from './helpers/context.js';
import type { Context } from '../src/core/index.js';
import { startEmulatorProcess, type EmulatorProcess } from './helpers/emulator-process.js';
import { spawnTds } from './helpers/spawn-tds.js';

// Each command loads only its own modules: `tds --version` not even main.ts; building the tree
// (completion, `tds help CMD`) loads no command's implementation, and the top-level help not even the tree; a run that names a command (`tds rows --help`)
// builds that command alone, with the same help; `tds rows` loads the export path but not push or the
// emulator; `tds sql` neither the terminal table nor diff; `tds mcp` answers `initialize` without the code
// of its tools or any other command. A module load hook (node --import) lists every file the real
// bin/tds.js imports: files of its bundle (scripts/bundle.js), each read as the modules esbuild put in it.

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

/**
 * Every module of tds that the command tree loads (completion, `tds help CMD`), and no other: main.ts's own, the
 * command definitions, and what they read of the other folders, through each folder's start-up surface
 * (options.ts) and the few light files behind it. Every run that shows help pays for each one (its code is
 * compiled and run): a module that has to join this list must be light, and must not bring the module it was
 * split from (an index, the code of an action) back. Modules of re-exports alone (the surfaces themselves, an
 * index) add no code to the bundle and are not listed: what they would bring shows as the modules it is.
 */
const TREE_MODULES = [
  'dist/main.js',
  'dist/program.js',
  ...['auth', 'check', 'completion', 'config', 'demo', 'diff', 'emulator', 'export', 'hints', 'lake', 'listings', 'mcp']
    .concat(['push', 'root', 'sql', 'stats', 'summaries', 'sync', 'webhooks'])
    .map((name) => `dist/commands/${name}.js`),
  ...['errors', 'io', 'number-option', 'redact', 'version'].map((name) => `dist/core/${name}.js`),
  'dist/config/keys.js',
  'dist/emulator/churn/churn-rates.js',
  'dist/emulator/faults/fault-spec.js',
  'dist/emulator/http/latency.js',
  'dist/emulator/options.js',
  'dist/emulator/seed/prng.js',
  'dist/export/export-request.js',
  'dist/http/connection-settings.js',
  'dist/output/format.js',
  'dist/output/write-error.js',
  'dist/push/deliver/in-flight.js',
  'dist/push/options.js',
  'dist/records/shape-options.js',
  'dist/service/index.js',
].sort();
/**
 * Every module of tds that `tds mcp` loads before it answers `initialize`: main.ts's, the root and the mcp command,
 * core and the settings, the server and each tool's definition (each tool's work is loaded by its first call).
 */
const MCP_MODULES = [
  'dist/main.js',
  ...['hints', 'mcp', 'mcp-action', 'root', 'summaries'].map((name) => `dist/commands/${name}.js`),
  ...['duration', 'errors', 'io', 'json-error', 'number-option', 'private-files', 'process-lock']
    .concat(['redact', 'suggest', 'version'])
    .map((name) => `dist/core/${name}.js`),
  ...['index', 'keychain', 'keys', 'read-secret', 'settings', 'store'].map((name) => `dist/config/${name}.js`),
  'dist/http/connection-settings.js',
  'dist/http/proxy.js',
  ...['serve', 'session', 'tool'].map((name) => `dist/mcp/${name}.js`),
  ...['check-tables', 'describe-table', 'diff-table', 'list-tables', 'query-sql', 'search-rows', 'sync-tables', 'table-stats'].map(
    (name) => `dist/mcp/tools/${name}.js`,
  ),
  'dist/output/format.js',
  'dist/output/write-error.js',
  'dist/service/index.js',
].sort();
/** The packages a run loaded, by name (`chalk`, `@modelcontextprotocol/core`). */
const packagesOf = (loaded: string[]): Set<string> =>
  new Set(loaded.flatMap((path) => /^node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1] ?? []));

/** Built-in modules that start-up has no use for (hashes, the HTTP stack, processes, compression). */
const HEAVY_BUILTINS = /^node:(crypto|http|https|http2|child_process|worker_threads|zlib|stream\/web)$/;

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

/** Runs bin/tds.js and returns its exit code and the modules it loaded: paths relative to the repository, and built-ins (`node:fs`). */
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
  const files = (await readFile(log, 'utf8'))
    .split('\n')
    .filter((url) => url.startsWith('file:') || url.startsWith('node:'))
    .map((url) => (url.startsWith('node:') ? url : fileURLToPath(url).slice(ROOT.length)));
  // tds runs from its bundle (scripts/bundle.js): nothing of node_modules is imported apart from it
  expect(files.filter((path) => path.startsWith('node_modules/'))).toEqual([]);
  const loaded = files.flatMap((path) => modulesIn(path) ?? [path]);
  return { code, loaded, stdout: run.stdout() };
}

/** The modules a file of the bundle holds (tsc's modules in dist/, and those of packages), as esbuild's account says. */
function modulesIn(path: string): string[] | undefined {
  bundled ??= JSON.parse(readFileSync(join(ROOT, 'dist/bundle/meta.json'), 'utf8')) as BundleAccount;
  const inputs = bundled.outputs[path]?.inputs;
  // a module of re-exports alone adds no code (esbuild counts 0 bytes of it, wherever it lists it)
  return inputs && Object.entries(inputs).flatMap(([module, { bytesInOutput }]) => (bytesInOutput > 0 ? [module] : []));
}

interface BundleAccount {
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}
let bundled: BundleAccount | undefined;

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

  it.each([['--version'], ['-V']])('tds %s answers before the rest of tds is loaded', async (flag) => {
    const { code, loaded, stdout } = await loadedBy([flag]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    // bin/tds.js answers it: not even main.ts, nor any package
    expect(loaded.filter((path) => !path.startsWith('node:'))).toEqual(['bin/tds.js', 'dist/core/version.js']);
    expect(loaded.filter((path) => HEAVY_BUILTINS.test(path))).toEqual([]);
  });

  it.each([[['--help']], [['-h']], [[]]])(
    "tds %j writes the top-level help from the commands' summaries: no definition, no tree",
    async (args: string[]) => {
      const { code, loaded } = await loadedBy(args);
      expect(code).toBe(0);
      expect(loaded.filter((path) => path === 'dist/program.js' || /^dist\/commands\/(?!(hints|root|summaries)\.js$)/.test(path))).toEqual(
        [],
      );
      expect(implementations(loaded)).toEqual([]);
      expect(packagesOf(loaded)).toEqual(new Set(['commander', 'chalk']));
      expect(loaded.filter((path) => path.startsWith('dist/') && !TREE_MODULES.includes(path))).toEqual([]);
    },
  );

  it("the top-level help from the summaries is the whole tree's, on a terminal and not", () => {
    const contexts: MemoryContextOptions[] = [
      {},
      { env: { COLUMNS: '140' } },
      { env: { COLUMNS: '60' } },
      { stdoutIsTTY: true, terminalWidth: 120 },
    ];
    for (const options of contexts) {
      const helpOf = (make: (ctx: Context) => Command): string => {
        const run = memoryContext(options);
        make(run.ctx).outputHelp();
        return run.stdout();
      };
      const tree = helpOf(buildProgram);
      expect(tree).toContain('push [options] [webhook] [file]');
      expect(helpOf(helpProgram), JSON.stringify(options)).toBe(tree);
    }
  });

  it.each([['completion', 'bash']])(
    'tds %s builds the command tree from the definitions and the folders’ start-up surfaces alone: no implementation, no index',
    async (...args: string[]) => {
      const { code, loaded } = await loadedBy(args);
      expect(code).toBe(0);
      expect(loaded).toContain('dist/program.js');
      expect(implementations(loaded)).toEqual([]);
      expect(heavyPackages(loaded)).toEqual([]);
      // exactly the tree's modules: a folder's index.ts or a module an action needs would add to these
      expect(loaded.filter((path) => path.startsWith('dist/')).sort()).toEqual(TREE_MODULES);
      expect(packagesOf(loaded)).toEqual(new Set(['commander', 'chalk']));
      expect(loaded.filter((path) => HEAVY_BUILTINS.test(path))).toEqual([]);
    },
  );

  it.each([
    ['rows', '--help'],
    ['push', '--help'],
    ['sync', '--help'],
    ['sql', '--help'],
    ['emulator', '--help'],
    ['config', 'path'],
  ])('tds %s builds its own command alone, without any implementation', async (...args: string[]) => {
    const { code, loaded } = await loadedBy(args);
    expect(code).toBe(0);
    expect(loaded).not.toContain('dist/program.js');
    // the command's definition, none of the others' (the root and the hints are main's)
    const own = { rows: 'export', push: 'push', sync: 'sync', sql: 'sql', emulator: 'emulator', config: 'config' }[args[0]!];
    expect(loaded.filter((path) => /^dist\/commands\/(?!(hints|root|summaries)\.js$)/.test(path))).toEqual([`dist/commands/${own}.js`]);
    expect(implementations(loaded)).toEqual([]);
    expect(heavyPackages(loaded)).toEqual([]);
  });

  it('a command built alone is the command of the tree: the same name, options and help, for every command', async () => {
    const tree = buildProgram(memoryContext().ctx);
    expect([...SINGLE_COMMANDS, 'completion']).toEqual(tree.commands.map((command) => command.name()));
    const helpOf = (program: Command, args: string[]): string => {
      const run = memoryContext();
      const target = args.reduce<Command>((at, name) => at.commands.find((command) => command.name() === name)!, program);
      target.configureOutput({ writeOut: (text) => run.ctx.io.stdout.write(text) });
      target.outputHelp();
      return run.stdout();
    };
    const paths = tree.commands.flatMap((command) => [[command.name()], ...command.commands.map((sub) => [command.name(), sub.name()])]);
    for (const path of paths.filter(([name]) => name !== 'completion')) {
      const alone = await programFor(memoryContext().ctx, [...path, '--help']);
      expect(
        alone?.commands.map((command) => command.name()),
        path.join(' '),
      ).toEqual([path[0]]);
      expect(helpOf(alone!, path), path.join(' ')).toBe(helpOf(buildProgram(memoryContext().ctx), path));
    }
  });

  it.each([[['--help']], [['--profile', 'p', '--help', 'sql']], [['help', 'sql']], [['doctor']], [['sqll']], [['--bogus', 'sql']], [[]]])(
    'tds %j is answered by the whole tree (help, an alias, an unknown command or option)',
    async (argv: string[]) => {
      expect(await programFor(memoryContext().ctx, argv)).toBeUndefined();
    },
  );

  it.each([
    [['sql', 'SELECT 1'], 'sql'],
    [['--profile', 'mcp', 'mcp'], 'mcp'],
    [['--timeout=5', '-v', '--no-color', 'rows', 'Leads'], 'rows'],
    [['--base-url', 'http://127.0.0.1:1/v1', 'config', 'path'], 'config'],
  ])('tds %j builds %s alone, past the root options and their values', async (argv: string[], name: string) => {
    const program = await programFor(memoryContext().ctx, argv);
    expect(program?.commands.map((command) => command.name())).toEqual([name]);
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

  it('tds sql on a small mirror loads neither the terminal table nor diff', async () => {
    const db = join(dir, 'small.duckdb');
    const made = await loadedBy(['sql', '--write', 'CREATE TABLE leads AS SELECT range AS n FROM range(250)', '--db', db]);
    expect(made.code).toBe(0);
    const { code, loaded, stdout } = await loadedBy(['sql', 'SELECT count(*) AS n FROM leads', '--db', db, '--format', 'csv']);
    expect(code).toBe(0);
    expect(stdout).toBe('n\n250\n');
    expect(loaded).toContain('dist/mirror/run-sql.js');
    expect(loaded.filter((path) => /^dist\/(output\/(record-)?table|mirror\/diff\/)/.test(path))).toEqual([]);
    expect(loaded.filter((path) => /^node_modules\/(cli-table3|node-emoji|emojilib)\//.test(path))).toEqual([]);
  });

  it('tds mcp answers initialize without loading its tools’ code (the mirror, DuckDB, the HTTP client, push, …) or another command', async () => {
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
    // the SDK and zod (the tools' schemas) and the settings; each tool's code is loaded by its first call
    expect(implementations(loaded).sort()).toEqual(['dist/commands/mcp-action.js', 'dist/config/settings.js']);
    expect(
      loaded.filter((path) => /^dist\/(check|stats|lake|mirror|duckdb|push|records|emulator|export|filter|parquet)\//.test(path)),
    ).toEqual([]);
    expect(
      loaded.filter((path) =>
        /^dist\/(program\.js$|http\/(?!(proxy|connection-settings)\.js$)|mcp\/(catalog|run-query|row-search)\.js$)/.test(path),
      ),
    ).toEqual([]);
    expect(loaded.filter((path) => /^dist\/commands\/(?!(hints|root|summaries|mcp|mcp-action)\.js$)/.test(path))).toEqual([]);
    expect(
      loaded.filter((path) => /^node_modules\/(yaml|cli-table3|node-emoji|csv-stringify|csv-parse|undici|ora|@duckdb)\//.test(path)),
    ).toEqual([]);
    // exactly these of tds, and of the packages only commander, chalk, the SDK and zod
    expect(loaded.filter((path) => path.startsWith('dist/')).sort()).toEqual(MCP_MODULES);
    expect(packagesOf(loaded)).toEqual(
      new Set(['commander', 'chalk', '@modelcontextprotocol/server', '@modelcontextprotocol/core', 'zod']),
    );
  });
});
