// Every failure the tool reports is a TdsError with a stable code; main.ts maps it to the exit code,
// and ends the process through exitProcess. This module sits below every layer: all of them throw these errors.

export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  paused: 5,
  gaveUp: 6,
  pushIncomplete: 7,
  truncated: 8,
  checkFailed: 9,
  interrupted: 130,
  /** SIGTERM (systemd, Docker, Kubernetes), handled as SIGINT is. */
  terminated: 143,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export type ErrorCode =
  | 'USAGE'
  | 'AUTH'
  | 'NOT_FOUND'
  | 'PAUSED'
  | 'GAVE_UP'
  | 'PUSH_INCOMPLETE'
  | 'TRUNCATED'
  | 'CHECK_FAILED'
  | 'INTERRUPTED'
  | 'API'
  /** The service answered something its spec rules out (docs/service-api.md): a cursor loop, two fields of one ID, a body of the wrong shape. */
  | 'SERVICE_FAULT'
  | 'UNEXPECTED';

const EXIT_BY_CODE: Record<ErrorCode, ExitCode> = {
  USAGE: EXIT.usage,
  AUTH: EXIT.auth,
  NOT_FOUND: EXIT.notFound,
  PAUSED: EXIT.paused,
  GAVE_UP: EXIT.gaveUp,
  PUSH_INCOMPLETE: EXIT.pushIncomplete,
  TRUNCATED: EXIT.truncated,
  CHECK_FAILED: EXIT.checkFailed,
  INTERRUPTED: EXIT.interrupted,
  API: EXIT.unexpected,
  SERVICE_FAULT: EXIT.gaveUp,
  UNEXPECTED: EXIT.unexpected,
};

/**
 * Why a request failed, in terms a layer above can turn into advice: the HTTP core knows no command,
 * so it says `unknown-table` and the command layer's hint names `tds tables` (commands/hints.ts).
 */
export type FailureReason =
  | 'bad-key'
  | 'paused'
  | 'table-not-found'
  | 'unknown-table'
  | 'unknown-workspace'
  | 'unreachable'
  | 'network'
  | 'proxy'
  | 'retries-exhausted'
  | 'rate-limit-exhausted'
  | 'bad-base-url'
  | 'bad-key-text';

export interface TdsErrorOptions {
  /** A next step for the user, printed on its own line after the message. */
  hint?: string;
  /** What a layer above can give advice for; printed as a hint before `hint`. */
  reason?: FailureReason;
  /** HTTP status, when the failure came from the service. */
  status?: number;
  cause?: unknown;
}

export class TdsError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly reason?: FailureReason;
  readonly status?: number;

  constructor(code: ErrorCode, message: string, options: TdsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TdsError';
    this.code = code;
    this.hint = options.hint;
    this.reason = options.reason;
    this.status = options.status;
  }

  get exitCode(): ExitCode {
    return EXIT_BY_CODE[this.code];
  }
}

/** Bad flags, bad filter, bad CSV, bad config: exit 2. */
export class UsageError extends TdsError {
  constructor(message: string, options: TdsErrorOptions = {}) {
    super('USAGE', message, options);
    this.name = 'UsageError';
  }
}

/** The service broke its own spec: exit 6, as when retries run out, since no change on this side mends it. */
export class ServiceFaultError extends TdsError {
  constructor(message: string, options: TdsErrorOptions = {}) {
    super('SERVICE_FAULT', message, options);
    this.name = 'ServiceFaultError';
  }
}

export function exitCodeOf(error: unknown): ExitCode {
  return error instanceof TdsError ? error.exitCode : EXIT.unexpected;
}

// Node's process.exit waits for the native calls running on libuv's thread pool to return. A DuckDB
// call that does not stop when interrupted (its parser never checks) would hold an interrupted run for
// as long as it runs, minutes for a pathological statement, whatever the user presses.

let stuck = 0;

/** A native call was given up after an interrupt and may still be running. */
export function noteStuckNativeWork(): void {
  stuck += 1;
}

/**
 * Ends the process with `code`. An interrupted run with native work still running ends by SIGINT
 * itself, as a program without a handler would (a shell reports 130 for it): the kernel ends every
 * thread at once, where process.exit would wait for them.
 */
export function exitProcess(code: number): never {
  const signal = code === EXIT.interrupted ? 'SIGINT' : code === EXIT.terminated ? 'SIGTERM' : undefined;
  if (signal && stuck > 0) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code);
}
