// Numbers fixed by service-api.md (sections 4 and 8).

export const PAGE_LIMIT_MIN = 1;
export const PAGE_LIMIT_MAX = 100;
export const PAGE_LIMIT_DEFAULT = 100;
export const CURSOR_MAX_CHARS = 500;
export const SEARCH_MAX_CHARS = 100;

export const FILTER_MAX_DEPTH = 5; // counting the top-level group
export const FILTER_MAX_ENTRIES_PER_GROUP = 25;
export const FILTER_MAX_ENTRIES_TOTAL = 100;
export const FILTER_VALUE_MAX_CHARS = 1000;
export const ANY_OF_MAX_ITEMS = 20; // containsAnyOf / doesNotContainAnyOf: extra entries are ignored by the service

export const WEBHOOK_MAX_OBJECTS = 500;
export const WEBHOOK_MAX_BODY_BYTES = 1_000_000; // "1 MB"

export const CELL_MAX_CHARS = 200; // longer values are cut in row responses

export const RATE_LIMITS = {
  /** workspace, table and schema reads, per organization */
  metadata: { requests: 300, perMs: 60_000 },
  /** GET rows and POST rows/query, per organization */
  rows: { requests: 60, perMs: 60_000 },
  /** requests with a missing or wrong key, per IP address and key */
  badKey: { requests: 60, perMs: 60_000 },
  /** webhook requests, per IP address */
  webhook: { requests: 100, perMs: 1_000 },
} as const;
export type RateLimitName = keyof typeof RATE_LIMITS;

/** Client default wait when a 429 carries no retry-after header. */
export const DEFAULT_RETRY_AFTER_SECONDS = 10;

/** Webhook intake: rows appear about 5 s after the last request, at most about 30 s while requests keep arriving. */
export const INTAKE_QUIET_MS = 5_000;
export const INTAKE_MAX_MS = 30_000;
