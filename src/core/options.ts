// src/core/options.ts: core's start-up surface, what the command definitions (and the modules their
// folders' options.ts read) take from core: the errors, the numeric flag parsers, redaction of a webhook
// URL and the version. Light: none of it loads node:crypto or the locks (index.ts is the whole surface).

export type { Context } from './context.js';
export { TdsError, UsageError, type TdsErrorOptions } from './errors.js';
export { parseIntegerOption, parseNumberOption, parseShareOption } from './number-option.js';
export { redactWebhookUrl } from './redact.js';
export { TDS_VERSION } from './version.js';
