import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { promptHidden, readSecret } from '../../src/config/read-secret.js';
import type { ReadStream } from 'node:tty';
import { testContext } from '../helpers/context.js';

/** A fake terminal: a stream with isTTY and setRawMode that records the mode. */
function fakeTerminal() {
  const stream = new PassThrough() as PassThrough & { isTTY: boolean; setRawMode(mode: boolean): unknown; modes: boolean[] };
  stream.isTTY = true;
  stream.modes = [];
  stream.setRawMode = (mode: boolean) => stream.modes.push(mode);
  return stream;
}

describe('readSecret', () => {
  it('takes the first non-empty line of piped stdin, trimmed', async () => {
    expect(await readSecret(testContext({}, '\n  tds_key_1  \nsecond\n').io, 'API key')).toBe('tds_key_1');
  });

  it('refuses empty input', async () => {
    await expect(readSecret(testContext({}, '\n').io, 'API key')).rejects.toThrow(/no API key given/);
  });

  it('prompts on a terminal without echoing what is typed', async () => {
    const terminal = fakeTerminal();
    const ctx = testContext({});
    ctx.io.stdin = terminal;
    const pending = readSecret(ctx.io, 'API key');
    terminal.write('sk_ab');
    terminal.write('x\u007fc\r');
    expect(await pending).toBe('sk_abc');
    expect(ctx.stderrText()).toBe('API key: \n');
    expect(terminal.modes).toEqual([true, false]);
  });

  it('Ctrl-C at the prompt interrupts', async () => {
    const terminal = fakeTerminal();
    const stderr = new PassThrough();
    const pending = promptHidden(terminal as unknown as ReadStream, stderr, 'key: ');
    terminal.write('ab\u0003');
    await expect(pending).rejects.toMatchObject({ code: 'INTERRUPTED' });
    expect(terminal.modes).toEqual([true, false]);
  });
});
