// src/core/: below every layer. Its surface: errors, exit codes and the one exit (errors.ts), a run's
// context (this file) and process IO (io.ts), secret redaction (redact.ts), numeric flag parsers
// (number-option.ts), file modes (private-files.ts), locks between processes (process-lock.ts) and JSON
// errors with their positions (json-error.ts).

import type { IO } from './io.js';

/** Options every command accepts (declared once on the root program). */
export interface GlobalOptions {
  baseUrl?: string;
  apiKeyFile?: string;
  profile?: string;
  verbose?: boolean;
  color?: boolean;
  maxRetries?: number;
}

/** What a command needs from the process, passed in so commands stay testable. */
export interface Context {
  io: IO;
  /** Aborted on the first SIGINT: long work stops cleanly and the command exits 130. */
  signal: AbortSignal;
  /** Writes one line on stderr when --verbose is on (already redacted by the caller). */
  verbose(line: string): void;
  /** Whether --verbose is on, so a hot path can skip building lines nobody will see (unknown: assume on). */
  isVerbose?(): boolean;
}
