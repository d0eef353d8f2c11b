import { describe, expect, it } from 'vitest';
import type { IO } from '../../src/core/io.js';
import { startLiveLine } from '../../src/output/live-line.js';
import { testContext } from '../helpers/context.js';

/** stderr as a terminal of `columns` columns. */
function io(columns: number): { io: IO; written: () => string } {
  const ctx = testContext({}, undefined, { columns });
  return { io: ctx.io, written: () => ctx.stderrText() };
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
