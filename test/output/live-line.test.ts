import { PassThrough } from 'node:stream';
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { IO } from '../../src/core/io.js';
import { startLiveLine } from '../../src/output/live-line.js';

/** stderr as a terminal of `columns` columns (undefined: a stream that does not say). */
function io(columns: number | undefined): { io: IO; written: () => string } {
  const stderr = Object.assign(new PassThrough(), columns === undefined ? {} : { columns });
  let written = '';
  stderr.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
  return {
    io: {
      stdout: new PassThrough(),
      stderr,
      stdin: new PassThrough(),
      stdoutIsTTY: false,
      stderrIsTTY: true,
      color: new Chalk({ level: 0 }),
      colorEnabled: false,
      terminalWidth: 100,
      env: {},
    },
    written: () => written,
  };
}

describe('the live status line', () => {
  it('is drawn and redrawn on a terminal', async () => {
    const terminal = io(80);
    let n = 0;
    const line = await startLiveLine(terminal.io, () => `step ${++n}`, 1000);
    line.refresh();
    line.note('a message');
    line.stop();
    expect(terminal.written()).toMatch(/step 1[\s\S]*step 2[\s\S]*a message\n/);
  });

  it('is not drawn on a terminal that reports no width (ora would clear endless lines), but notes still show', async () => {
    const terminal = io(0);
    const line = await startLiveLine(terminal.io, () => 'a long line of progress '.repeat(10), 1000);
    for (let i = 0; i < 5; i += 1) line.refresh();
    line.note('a message');
    line.succeed('done');
    expect(terminal.written()).toBe('a message\n');
  });
});
