import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';

/**
 * The text of `--filter JSON|@FILE|-`: inline JSON, a file, or stdin. `stdinTaken` when the API
 * key is read from stdin too (--api-key-file -): both cannot have it.
 */
export async function readFilterText(ctx: Context, raw: string, stdinTaken: boolean): Promise<string> {
  if (raw === '-') {
    if (stdinTaken) throw new UsageError('--filter - and --api-key-file - cannot both read stdin', { hint: 'give the filter as @FILE' });
    return text(ctx.io.stdin);
  }
  if (!raw.startsWith('@')) return raw;
  const path = raw.slice(1);
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--filter: cannot read ${path}${code ? ` (${code})` : ''}`);
  }
}
