import type { BatchState } from '../journal/journal-format.js';

// What a webhook's ledger lines add up to (pure): the submissions it took, and those it may have taken.

export interface LedgerHeader {
  ledger: 'tds webhook';
  version: number;
  /** the webhook as displayed (redacted), and the hash of its URL */
  webhook: { shown: string; sha256: string };
  /** the table it feeds, when the push knew it (--table) */
  table?: string;
  createdAt: string;
}

/** One state of one batch (or part) of a push, as its journal recorded it. */
export interface LedgerLine {
  /** what the batch numbers belong to: the push's journal (or its run, without one) */
  src: string;
  batch: number;
  part?: string;
  state: BatchState;
  count: number;
  /** narrowed: how many records go on (the others are in the table) */
  kept?: number;
  why?: 'existing' | 'settled';
  at: string;
}

export interface LedgerCount {
  /** objects the webhook answered 2xx to, and those of uncertain requests found in the table by key */
  submissions: number;
  /** objects of requests whose outcome is unknown (a 5xx, a timeout, a kill while in flight): maybe taken */
  uncertain: number;
  firstUse?: string;
  lastUse?: string;
}

/**
 * Folds ledger lines, oldest first. A request counts from its `sending` line: `accepted` takes its
 * objects in, `uncertain` (or no outcome: the push was killed) leaves them uncertain until a later line
 * concludes them (by key: `narrowed` keeps the records not found; --accept-uncertain: `accepted`), and
 * `unsent`, `rejected` or `split` (413) take nothing in.
 */
export function countLines(lines: ReadonlyArray<LedgerLine | { ledger: string }>): LedgerCount {
  const requests = new Map<string, { state: 'open' | 'accepted' | 'none'; count: number }>();
  let firstUse: string | undefined;
  let lastUse: string | undefined;
  for (const line of lines) {
    if (!('src' in line)) continue;
    const id = `${line.src}|${line.batch}${line.part ? `.${line.part}` : ''}`;
    const request = requests.get(id);
    switch (line.state) {
      case 'sending':
        // a new request of the batch: an earlier one (a retry, --resend-uncertain) keeps its own count
        if (request) requests.set(`${id}#${requests.size}`, request);
        requests.set(id, { state: 'open', count: line.count });
        firstUse ??= line.at;
        lastUse = line.at;
        break;
      case 'uncertain':
        if (request) request.state = 'open';
        break;
      case 'accepted':
        if (request) request.state = 'accepted';
        break;
      case 'narrowed':
        if (line.why === 'settled' && request?.state === 'open') {
          request.state = 'accepted';
          request.count = line.count - (line.kept ?? 0);
        }
        break;
      default:
        if (request) request.state = 'none';
    }
  }
  let submissions = 0;
  let uncertain = 0;
  for (const { state, count } of requests.values()) {
    if (state === 'accepted') submissions += count;
    else if (state === 'open') uncertain += count;
  }
  return { submissions, uncertain, ...(firstUse ? { firstUse } : {}), ...(lastUse ? { lastUse } : {}) };
}
