// src/core/: below every layer. Its surface: errors, exit codes and the one exit (errors.ts), a run's
// context (context.ts) and process IO (io.ts), secret redaction (redact.ts), numeric flag parsers
// (number-option.ts), durations (duration.ts), file modes (private-files.ts), locks between processes
// (process-lock.ts), JSON errors with their positions (json-error.ts), did-you-mean (suggest.ts) and
// the version. Light: the command definitions and main.ts load it at start-up.

export type { Context } from './context.js';
export { MAX_DURATION_DAYS, parseDuration } from './duration.js';
export {
  EXIT,
  exitCodeOf,
  exitProcess,
  noteStuckNativeWork,
  ServiceFaultError,
  TdsError,
  UsageError,
  type ErrorCode,
  type ExitCode,
  type FailureReason,
  type TdsErrorOptions,
} from './errors.js';
export { processIO, type IO } from './io.js';
export { describeJsonFault, findJsonFault } from './json-error.js';
export { parseIntegerOption, parseNumberOption, parseShareOption } from './number-option.js';
export { holdPrivateUmask, PRIVATE_FILE_MODE, userFileMode } from './private-files.js';
export { lockAddress, namedLockHolder, tryLock, tryNamedLock, type ProcessLock } from './process-lock.js';
export { redactSecrets, redactWebhookUrl } from './redact.js';
export { closest, didYouMean } from './suggest.js';
export { TDS_VERSION } from './version.js';
