import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.js';
import { serviceTimings } from '../../src/http/rate-limiter.js';
import { startSyncProgress } from '../../src/mirror/sync-report.js';
import type { Table } from '../../src/service/index.js';
import { testContext } from '../helpers/context.js';

/** A context whose stderr counts as a terminal; `last()` is the last state of the progress line. */
function terminal(env: NodeJS.ProcessEnv): { ctx: Context; last: () => string } {
  const ctx = testContext(env, undefined, {});
  const last = (): string => {
    // ora redraws the line with cursor moves, which leave one string of frames once removed
    const frames = stripVTControlCharacters(ctx.stderrText()).split(/(?=tables \d+\/)/);
    return (frames.at(-1) ?? '').replace(/[\u2800-\u28ff]/g, '').trim(); // without the spinner's braille frames
  };
  return { ctx, last };
}

const table = (name: string, rowCount: number): Table => ({
  id: `tbl_${name}`,
  name,
  emoji: null,
  workspaceId: 'wsp_1',
  workspaceName: 'W',
  rowCount,
  fieldCount: 1,
});

describe('the sync progress line', () => {
  it('gives the time left for every table of the run at the row-read limit they share', async () => {
    // 60 row requests a minute: Leads 30,000 rows (300 pages), Big 60,000 (600), Empty (at least 1 page)
    const { ctx, last } = terminal({});
    const tables = [table('Leads', 30_000), table('Big', 60_000), table('Empty', 0)];
    const progress = (await startSyncProgress(ctx, tables, serviceTimings(1).windows.rows))!;
    expect(last()).toMatch(/^tables 0\/3 · : 0 rows · 0 rows\/s · at most 15m left$/);
    progress.table(tables[0]!);
    expect(last()).toMatch(/^tables 0\/3 · Leads: 0 rows .* at most 15m left \(5m on this table\)$/);
    progress.page(6_000); // 240 pages of Leads left, then 601
    expect(last()).toMatch(/^tables 0\/3 · Leads: 6,000 rows .* at most 14m left \(4m on this table\)$/);
    progress.table(tables[1]!);
    progress.page(59_950);
    expect(last()).toMatch(/^tables 1\/3 · Big: 59,950 rows .* at most 2s left \(1s on this table\)$/);
    progress.table(tables[2]!);
    expect(last()).toMatch(/^tables 2\/3 · Empty: 0 rows · [\d,]+ rows\/s$/);
    progress.stop();
  });

  it('counts the rate scale of the limit it is given (never TDS_RATE_SCALE itself), and is not shown when stderr is not a terminal', async () => {
    // the environment says 1000: the line takes the scale only from the limit the client keeps
    const { ctx, last } = terminal({ TDS_RATE_SCALE: '1000' });
    const tables = [table('Leads', 30_000)];
    const rows = serviceTimings(10).windows.rows;
    const progress = (await startSyncProgress(ctx, tables, rows))!;
    progress.table(tables[0]!);
    expect(last()).toMatch(/^tables 0\/1 · Leads: 0 rows · 0 rows\/s · at most 30s left$/);
    progress.stop();
    expect(await startSyncProgress({ ...ctx, io: { ...ctx.io, stderrIsTTY: false } }, tables, rows)).toBeUndefined();
  });

  it('says when the next page waits for the row-read limit, and for how long', async () => {
    const { ctx, last } = terminal({});
    const tables = [table('Leads', 30_000)];
    let waitMs = 0;
    const progress = (await startSyncProgress(ctx, tables, serviceTimings(1).windows.rows, () => waitMs))!;
    progress.table(tables[0]!);
    progress.page(6_000);
    expect(last()).not.toMatch(/waiting/);
    waitMs = 13_200;
    progress.page(6_100);
    expect(last()).toMatch(/^tables 0\/1 · Leads: 6,100 rows · [\d,]+ rows\/s · waiting for the row-read limit, 14 s · at most \dm left$/);
    progress.stop();
  });

  it('counts what is left of a pass it continues, and leaves its saved rows out of the rate', async () => {
    const { ctx, last } = terminal({});
    const tables = [table('Leads', 30_000)];
    const progress = (await startSyncProgress(ctx, tables, serviceTimings(1).windows.rows))!;
    progress.table(tables[0]!);
    progress.continues!(24_000); // 60 pages left: a minute at 60 a minute
    expect(last()).toMatch(/^tables 0\/1 · Leads: 24,000 rows · 0 rows\/s · at most 1m left$/);
    progress.page(24_100);
    expect(last()).toMatch(/^tables 0\/1 · Leads: 24,100 rows · [\d,]+ rows\/s · at most 59s left$/);
    progress.stop();
  });
});
