import { TdsError, type TdsErrorOptions } from '../core/options.js';

// A write the system refused (a full disk, a file-size limit, an I/O error): not a bug in tds, but a
// failure with its own one-line message that names the target and the system's reason. Exit 1.

/** `no space left on device (ENOSPC)` from Node's `ENOSPC: no space left on device, write`. */
export function describeWriteError(error: unknown): string {
  const failure = (error ?? {}) as Partial<NodeJS.ErrnoException>;
  const code = typeof failure.code === 'string' ? failure.code : undefined;
  let text = error instanceof Error ? error.message : String(error);
  if (code && text.startsWith(`${code}: `)) text = text.slice(code.length + 2);
  const syscallAt = failure.syscall ? text.lastIndexOf(`, ${failure.syscall}`) : -1;
  if (syscallAt > 0) text = text.slice(0, syscallAt);
  return code && !text.includes(code) ? `${text} (${code})` : text;
}

/** `cannot write to TARGET: REASON (CODE)`; `target` is `stdout` or a file's path. */
export class OutputWriteError extends TdsError {
  readonly target: string;

  constructor(target: string, cause: unknown, options: Omit<TdsErrorOptions, 'cause'> = {}) {
    super('UNEXPECTED', `cannot write to ${target}: ${describeWriteError(cause)}`, { ...options, cause });
    this.name = 'OutputWriteError';
    this.target = target;
  }

  /** The same failure with a hint (what was kept, how to go on). */
  withHint(hint: string): OutputWriteError {
    return new OutputWriteError(this.target, this.cause, { hint });
  }
}

/** `error` as an OutputWriteError of `target` (kept as is when it already is one). */
export function asWriteError(target: string, error: unknown): OutputWriteError {
  return error instanceof OutputWriteError ? error : new OutputWriteError(target, error);
}
