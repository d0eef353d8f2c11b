import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import type { Context } from '../../core/context.js';
import { UsageError } from '../../core/errors.js';
import type { BatchItem } from '../plan/batch.js';

/**
 * `--rejects FILE`: one NDJSON line per rejected record, `{"record": N, "reason": "...", "object": {...}}`.
 * It lists every rejected record of the input, earlier runs' included (--resume lists them again).
 */
export class RejectsFile {
  private chain: Promise<void> = Promise.resolve();

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly staged: boolean,
  ) {}

  /**
   * `new`: start the file afresh; `append`: add to it; `staged`: write FILE.partial, renamed to FILE by
   * close() and removed by discard(), so a failed check never replaces an earlier complete file.
   */
  static async open(path: string, mode: 'new' | 'append' | 'staged'): Promise<RejectsFile> {
    const target = mode === 'staged' ? `${path}.partial` : path;
    try {
      return new RejectsFile(path, await open(target, mode === 'append' ? 'a' : 'w'), mode === 'staged');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(`cannot write the rejects file ${target}${code ? ` (${code})` : ''}`);
    }
  }

  write(items: readonly BatchItem[], reason: string): Promise<void> {
    const text = items.map((item) => `{"record":${item.record},"reason":${JSON.stringify(reason)},"object":${item.json}}\n`).join('');
    this.chain = this.chain.then(() => this.handle.write(text).then(() => undefined));
    return this.chain;
  }

  async close(): Promise<void> {
    await this.chain;
    await this.handle.close();
    if (this.staged) await rename(`${this.path}.partial`, this.path);
  }

  async discard(): Promise<void> {
    await this.chain.catch(() => undefined);
    await this.handle.close();
    await unlink(this.staged ? `${this.path}.partial` : this.path).catch(() => undefined);
  }
}

/** --verbose lists each record left out for its repeated key. */
export function logDuplicate(ctx: Context): (record: number, of: number, key: string) => void {
  return (record, of, key) => ctx.verbose(`record ${record} not sent: its key ${JSON.stringify(key)} repeats record ${of}'s`);
}
