import type { CheckKind, CheckSpec, Severity } from './checks-file.js';

// One check's outcome, as every format shows it, _tds_checks keeps it and a notification compares it.

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'error';

export interface CheckResult {
  /** The table as the checks file names it. */
  table: string;
  /** Its readable name, unique within the table: `fill Email`, `sql owners`, `schema`. */
  check: string;
  kind: CheckKind;
  status: CheckStatus;
  /** A count, a share (0–1), an age in seconds (activity, fresh), or the drift in words (schema); null when there is none. */
  observed: number | string | null;
  /** What passes, in words: `≤ 0.2`, `100–45000`, `≤ 2h`. */
  threshold: string;
  /** Up to 3 row IDs where rows are at fault. */
  examples: string[];
  /** Why an `error` could not be evaluated; what drifted for a schema; else null. */
  message: string | null;
}

/** Examples a result carries, at most. */
export const MAX_EXAMPLES = 3;

/** A result whose figure is out of bounds gets the check's severity. */
export function judged(ok: boolean, severity: Severity): CheckStatus {
  return ok ? 'pass' : severity;
}

/** How many results fail, warn, pass and could not be evaluated. */
export function tally(results: readonly CheckResult[]): Record<CheckStatus, number> {
  const counts: Record<CheckStatus, number> = { pass: 0, warn: 0, fail: 0, error: 0 };
  for (const result of results) counts[result.status] += 1;
  return counts;
}

/** `2 fail, 1 warn, 7 pass` (only the non-zero ones; errors too). */
export function tallyText(results: readonly CheckResult[]): string {
  const counts = tally(results);
  const parts = (['fail', 'error', 'warn', 'pass'] as const)
    .filter((status) => counts[status] > 0)
    .map((status) => `${counts[status]} ${status}`);
  return parts.length === 0 ? 'no checks' : parts.join(', ');
}

const UNITS: Array<[string, number]> = [
  ['d', 86_400],
  ['h', 3600],
  ['m', 60],
  ['s', 1],
];

/** An age in seconds as people read it: `3d 4h`, `2h 5m`, `45s`. */
export function ageText(seconds: number): string {
  if (seconds < 1) return '0s';
  const parts: string[] = [];
  let rest = Math.floor(seconds);
  for (const [unit, size] of UNITS) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    } else if (parts.length > 0) break;
  }
  return parts.join(' ');
}

/** The observed figure as the terminal, JUnit and a notification show it. */
export function observedText(result: CheckResult): string {
  const { observed } = result;
  if (observed === null) return '–';
  if (typeof observed === 'string') return observed;
  if (result.kind === 'activity' || result.kind === 'fresh' || result.kind === 'stale') return ageText(observed);
  if (result.kind === 'fill' || result.kind === 'failure_rate') return `${(observed * 100).toFixed(1).replace(/\.0$/, '')} %`;
  return observed.toLocaleString('en-US');
}

/** A check's threshold in words, as every format shows it. */
export function thresholdOf(spec: CheckSpec): string {
  switch (spec.kind) {
    case 'rows':
    case 'fill': {
      const show = (n: number): string => (spec.kind === 'fill' ? `${n * 100} %` : n.toLocaleString('en-US'));
      if (spec.min !== undefined && spec.max !== undefined) return `${show(spec.min)} – ${show(spec.max)}`;
      return spec.min !== undefined ? `≥ ${show(spec.min)}` : `≤ ${show(spec.max!)}`;
    }
    case 'unique':
    case 'accepted':
      return '0 rows';
    case 'failure_rate':
      return `≤ ${spec.max * 100} %${spec.since ? ` since ${spec.since.text}` : ''}`;
    case 'stuck':
      return `0 cells older than ${spec.maxAge.text}`;
    case 'activity':
      return `≤ ${spec.maxQuiet.text}`;
    case 'fresh':
      return `≤ ${spec.maxAge.text}`;
    case 'stale':
      return '≤ its recorded bound';
    case 'sql':
      return `≤ ${spec.max} rows`;
  }
}
