import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { spawnedHarness } from './export-support.js';
import { emulatorRequests, type Target } from './read-support.js';
import { TDS_BIN } from '../helpers/cli.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { childEnv } from '../helpers/hermetic-env.js';

// What a user sees of an export besides its records: limits, cut-cell warnings, a closed pipe, and
// progress on a terminal (interrupted and resumed exports: rows-resume.test.ts).

const { emulator, tds, tempDir } = spawnedHarness('rows-export-');
const rowReads = async (target: Target) => (await emulatorRequests(target)).filter((entry) => /\/rows(\/query)?(\?|$)/.test(entry.path));

/**
 * `tds ARGS | head -c 1` in a shell: head reads one byte and exits, so the pipe closes while tds writes an
 * export larger than the pipe holds (64 KB), however fast either side runs. tds's exit code and stderr.
 */
async function intoHead(args: string[]): Promise<{ code: number; stderr: string }> {
  // the shell's stdout (fd 3 inside) carries tds's exit code alone
  const pipeline = 'exec 3>&1; { "$0" "$@" 3>&-; echo "$?" >&3; } | head -c 1 >/dev/null';
  const child = spawn('sh', ['-c', pipeline, process.execPath, TDS_BIN, ...args], {
    env: childEnv(emulator.env),
    cwd: emulator.dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [stdout, stderr] = await Promise.all([text(child.stdout), text(child.stderr)]);
  expect(await new Promise((resolve) => child.once('close', resolve))).toBe(0);
  return { code: Number(stdout), stderr };
}

const text = async (stream: NodeJS.ReadableStream): Promise<string> => {
  let all = '';
  for await (const chunk of stream) all += String(chunk);
  return all;
};

describe('tds rows: exports', () => {
  it('-n/--limit stops early with the fewest requests: the last page asks only for what is needed', async () => {
    const before = (await rowReads(emulator)).length;
    const result = await tds(['rows', 'Leads', '-n', '150', '--format', 'ndjson']);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(150);
    const reads = (await rowReads(emulator)).slice(before);
    expect(reads.map((entry) => new URL(entry.path, 'http://x').searchParams.get('limit'))).toEqual(['100', '50']);
  });

  it('warns about cut cells per column at the end; --on-truncated error exits 8 and leaves FILE.partial', async () => {
    const warned = await tds(['rows', 'Leads', '--columns', 'Name,Notes,Address', '--no-meta']);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(
      /^tds: warning: \d+ cells were cut by the service at 200 characters \(the cut text was kept\): "Notes" \d+, "Address" \d+$/m,
    );

    const dir = await tempDir();
    const failed = await tds(['rows', 'Leads', '-o', join(dir, 'leads.csv'), '--on-truncated', 'error']);
    expect(failed.code).toBe(8);
    expect(failed.stderr).toMatch(/cells were cut by the service/);
    expect(failed.stderr).toMatch(/tds: \d+ cut cells and --on-truncated error; the output is left in .*leads\.csv\.partial/);
    expect(await readdir(dir)).toEqual(['leads.csv.partial']);
  });

  it('stdout closed early (| head) is a normal exit', async () => {
    const args = ['rows', 'Leads', '--page-size', '10', '--format', 'ndjson'];
    const run = await intoHead(args);
    // it stopped under way, before its end: the export read to its end says that cells were cut; this one
    // said nothing (how many pages it read first depends on how fast head closed the pipe)
    expect(run).toEqual({ code: 0, stderr: '' });
    const whole = await tds(args);
    expect(whole.code).toBe(0);
    expect(whole.stderr).toMatch(/^tds: warning: \d+ cells were cut by the service/m);
  });

  it('shows progress on a terminal (TDS_FORCE_TTY=1): rows, percentage of the table, and a final line', async () => {
    const result = await tds(['rows', 'Leads', '--page-size', '50', '-o', join(await tempDir(), 'leads.csv')], {
      env: { TDS_FORCE_TTY: '1' },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/\d+ rows · [\d,]+ rows\/s · \d+% of 250/);
    expect(result.stderr).toMatch(/250 rows written to .*leads\.csv in [\d.]+s/);
  });
});
