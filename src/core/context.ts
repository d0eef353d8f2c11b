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
