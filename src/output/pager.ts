import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Context } from '../core/context.js';

// A table longer than the terminal goes through a pager, as gh does: TDS_PAGER, else PAGER, else
// `less -FRX` (which quits by itself when the text fits one screen, keeps colour and leaves the text
// on the screen). Never when stdout is not a terminal; TDS_PAGER='' or `cat` turns it off.

/** The pager command for this run, or undefined when none is used. */
export function pagerCommand(io: Context['io']): string | undefined {
  if (!io.stdoutIsTTY) return undefined;
  const command = (io.env.TDS_PAGER ?? io.env.PAGER ?? 'less -FRX').trim();
  return command === '' || command === 'cat' ? undefined : command;
}

/**
 * Writes `text` to stdout, through the pager when one is set and the text has more lines than the
 * terminal. A pager that cannot start (not installed) leaves the text written as it is.
 */
export async function writePaged(ctx: Pick<Context, 'io'>, text: string): Promise<void> {
  const { io } = ctx;
  const command = pagerCommand(io);
  const height = (io.stdout as { rows?: number }).rows || Number(io.env.LINES) || 24;
  if (!command || text.split('\n').length <= height) {
    io.stdout.write(text);
    return;
  }
  // the process's own stdout is the terminal the pager draws on; another stream (a test's) gets its output
  const own = io.stdout === process.stdout;
  const child = spawn(command, { shell: true, stdio: ['pipe', own ? 'inherit' : 'pipe', 'inherit'], env: { LESS: 'FRX', ...io.env } });
  child.stdout?.on('data', (chunk: Buffer) => io.stdout.write(chunk));
  child.stdin!.on('error', () => undefined); // the pager quit before reading everything (q in less)
  const started = await Promise.race([once(child, 'spawn').then(() => true), once(child, 'error').then(() => false)]);
  if (!started) {
    io.stdout.write(text);
    return;
  }
  child.stdin!.end(text);
  await once(child, 'close');
}
