import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runTds } from '../helpers/cli.js';
import { spawnTds } from '../helpers/spawn-tds.js';

// Issue 20, item 9: Ctrl-C stops `tds sql`: DuckDB is interrupted and tds exits 130, saying so, with
// no line that claims the result complete and -o FILE never written as if complete. Signals are what
// is tested, so tds runs as a process; each statement would run for hours if it were not stopped.

let dir: string;
let db: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tds-sql-interrupt-'));
  db = join(dir, 'mirror.duckdb');
  const made = await runTds(['sql', 'CREATE TABLE t AS SELECT 1 AS a', '--write', '--db', db]);
  expect(made.code, made.stderr).toBe(0);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `tds sql --verbose ARGS`, sends SIGINT once `ready` holds (by default: once tds says on stderr
 * that it runs the statement), and waits for its end.
 */
async function interrupted(args: string[], options: { input?: string; ready?: () => Promise<boolean> } = {}): Promise<Ended> {
  const run = spawnTds(['sql', '--verbose', '--db', db, ...args], {
    cwd: dir,
    env: { NO_COLOR: '1', TDS_CONFIG_DIR: join(dir, 'config') },
    input: options.input ?? '',
  });
  const { child } = run;
  const ended = run.ended.then(({ code, signal }) => ({ code, signal, stdout: run.stdout(), stderr: run.stderr() }));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    await vi.waitFor(() => expect(run.stderr()).toMatch(/^sql: .*running the statement$/m), { timeout: 20_000, interval: 20 });
    if (options.ready) await vi.waitFor(async () => expect(await options.ready!()).toBe(true), { timeout: 20_000, interval: 20 });
    child.kill('SIGINT');
    return await ended;
  } finally {
    clearTimeout(killer);
    child.kill('SIGKILL');
  }
}

describe('SIGINT during tds sql', () => {
  it('a long computation: exit 130, "interrupted", no row count', async () => {
    const ended = await interrupted(['SELECT sum(a.range * b.range) AS s FROM range(1000000) a, range(1000000) b', '--format', 'table']);
    expect(ended.code, ended.stderr).toBe(130);
    expect(ended.stderr).toMatch(/^tds: interrupted$/m);
    expect(ended.stderr).not.toMatch(/^[\d,]+ rows?\b|^ok$/m);
    expect(ended.stdout).toBe('');
  });

  it('rows streaming to -o FILE: exit 130, and what was written is left as FILE.partial, never as FILE', async () => {
    const partial = join(dir, 'rows.csv.partial');
    const ended = await interrupted(['SELECT range AS i FROM range(100000000000)', '-o', 'rows.csv'], {
      ready: async () => ((await stat(partial).catch(() => undefined))?.size ?? 0) > 0,
    });
    expect(ended.code, ended.stderr).toBe(130);
    expect(ended.stderr).toMatch(/^tds: interrupted$/m);
    const names = await readdir(dir);
    expect(names).not.toContain('rows.csv');
    expect(names).toContain('rows.csv.partial');
  });

  it('-o FILE.parquet: exit 130, and no file', async () => {
    const ended = await interrupted(['SELECT a.range AS i, b.range AS j FROM range(1000000) a, range(1000000) b', '-o', 'big.parquet']);
    expect(ended.code, ended.stderr).toBe(130);
    expect((await readdir(dir)).filter((name) => name.startsWith('big'))).toEqual([]);
  });

  it('a statement DuckDB parses for minutes (its parser never stops): tds ends by SIGINT, which a shell reports as 130', async () => {
    // 400,000 SELECTs joined by UNION ALL, 9.5 MB: about 30 s in DuckDB's parser on a fast machine
    const sql = Array.from({ length: 400_000 }, (_, i) => `SELECT ${i}`).join(' UNION ALL ');
    const ended = await interrupted(['-'], { input: sql });
    // not exit 130 once the parser is done: process.exit would wait for it, the signal does not
    expect(ended.signal, `exit ${ended.code}: ${ended.stderr}`).toBe('SIGINT');
    expect(ended.stderr).toMatch(/^tds: interrupted$/m);
  });
});
