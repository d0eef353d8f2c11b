import { closeSync, existsSync, openSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { test as it, type Harness } from '../helpers/emulator-fixture.js';

// Issue 15, item 7: stdout that cannot be written (a full disk: /dev/full) is a one-line error and
// exit 1 for every command; a pipe closed by its reader (`| head`) stays a normal exit.

// one emulator for the file (in this process: the runs are the processes), which every run only reads
let emulator: Harness;

it.beforeAll(({ harness }) => {
  emulator = harness;
});

const COMMANDS = [
  ['workspaces'],
  ['tables', '--format', 'json'],
  ['tables', '--format', 'csv'],
  ['schema', 'Leads'],
  ['rows', 'Leads'],
  ['rows', 'Leads', '--format', 'ndjson', '--page-size', '10'],
  ['query', 'Leads', '--where', 'Employees >= 100', '--format', 'json'],
  ['query', 'Leads', '--where', 'Employees >= 100', '--explain'],
  ['completion', 'bash'],
  ['--version'],
];

(existsSync('/dev/full') ? describe.concurrent : describe.skip)('stdout on a full disk (/dev/full)', () => {
  it.each(COMMANDS.map((args) => [args.join(' '), args]))('tds %s: one line on stderr, exit 1', async (_name, args) => {
    const full = openSync('/dev/full', 'w');
    try {
      const run = emulator.spawn(args, { stdio: ['ignore', full, 'pipe'] });
      const code = await run.exit;
      expect(run.stderr()).toBe('tds: cannot write to stdout: no space left on device (ENOSPC)\n');
      expect(code).toBe(1);
    } finally {
      closeSync(full);
    }
  });
});

describe.concurrent('stdout closed by its reader (| head)', () => {
  it.each(COMMANDS.map((args) => [args.join(' '), args]))('tds %s: a normal exit, nothing on stderr', async (_name, args) => {
    const run = emulator.spawn(args);
    run.child.stdout!.destroy();
    expect(await run.exit).toBe(0);
    expect(run.stderr()).toBe('');
  });
});
