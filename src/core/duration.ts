import { UsageError } from './errors.js';

// A duration as the options take it (--since 3d, --max-stale 1h, a check's max_age: 2h): a number and a unit.

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/i;
/** The longest duration taken: a century, so that "that long ago" is always a moment a clock can name. */
export const MAX_DURATION_DAYS = 36_500;
const MAX_DURATION_MS = MAX_DURATION_DAYS * UNIT_MS.d!;

/**
 * A duration (`30d`, `12h`, `90m`, `45s`, `2w`) in ms; undefined when the text is not one. A duration
 * longer than MAX_DURATION_DAYS is a usage error naming `option` (the flag or argument it came from).
 */
export function parseDuration(text: string, option = 'the duration'): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2]!.toLowerCase()]!;
  if (ms > MAX_DURATION_MS) {
    throw new UsageError(`${option} ${JSON.stringify(text)} is longer than tds takes`, {
      hint: `a duration goes from 0s up to ${MAX_DURATION_DAYS}d (100 years): s, m, h, d or w after a number`,
    });
  }
  return ms;
}
