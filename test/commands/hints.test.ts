import { describe, expect, it } from 'vitest';
import { hintsOf } from '../../src/commands/hints.js';
import { TdsError, type FailureReason } from '../../src/core/errors.js';

describe('hintsOf', () => {
  it.each<[FailureReason, RegExp]>([
    ['bad-key', /tds config set api-key/],
    ['table-not-found', /`tds tables` lists the ones that do/],
    ['unknown-table', /`tds tables` lists the tables/],
    ['unknown-workspace', /`tds workspaces`/],
    ['unreachable', /--base-url, TDS_BASE_URL or `tds config get base-url`/],
    ['retries-exhausted', /--max-retries/],
  ])('%s names the command or setting that helps', (reason, pattern) => {
    expect(hintsOf(new TdsError('API', 'x', { reason }))).toMatch(pattern);
  });

  it("puts the reason's advice before the error's own hint, and is empty without either", () => {
    expect(hintsOf(new TdsError('API', 'x', { reason: 'paused', hint: 'then resume' }))).toMatch(/resume it in the app; then resume$/);
    expect(hintsOf(new TdsError('API', 'x', { hint: 'only this' }))).toBe('only this');
    expect(hintsOf(new TdsError('API', 'x'))).toBeUndefined();
  });
});
