import { PassThrough } from 'node:stream';
import { Chalk } from 'chalk';
import type { Context } from '../../src/core/context.js';

/** A Context over in-memory streams, for tests that need no process. */
export function testContext(
  env: NodeJS.ProcessEnv,
  stdinText?: string,
  /** stderr as a terminal (of `columns` columns when given: a PassThrough says none) */
  terminal?: { columns?: number },
): Context & { stderrText(): string } {
  const stdin = new PassThrough();
  if (stdinText !== undefined) stdin.end(stdinText);
  const stderr = Object.assign(new PassThrough(), terminal?.columns === undefined ? {} : { columns: terminal.columns });
  let errText = '';
  stderr.on('data', (chunk: Buffer) => (errText += chunk.toString('utf8')));
  return {
    io: {
      stdout: new PassThrough(),
      stderr,
      stdin,
      stdoutIsTTY: false,
      stderrIsTTY: terminal !== undefined,
      color: new Chalk({ level: 0 }),
      colorEnabled: false,
      terminalWidth: 100,
      env,
    },
    signal: new AbortController().signal,
    verbose: () => undefined,
    stderrText: () => errText,
  };
}
