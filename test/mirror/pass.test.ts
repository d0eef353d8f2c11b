import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { later, nextWatermark, reachesWatermark, serviceDate, WATERMARK_MARGIN_MS } from '../../src/mirror/pass.js';
import { INTAKE_MAX_MS } from '../../src/service/index.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const at = (ms: number): string => new Date(T0 + ms).toISOString();
const MINUTE = 60_000;

describe('nextWatermark', () => {
  it.each(
    (
      [
        ['an idle table: the pass start (the Date of its first answer) is later than the newest row', -3_600_000, null, 0, -MINUTE],
        ['a burst just before the pass: its start still decides', -5_000, null, 0, -MINUTE],
        ['a newest row later than the Date (a Date cut to whole seconds): the newest row decides', 800, null, 0, 800 - MINUTE],
        ['a row still running an action: its creation time bounds it', -5_000, -7_200_000, 0, -7_200_000 - MINUTE],
        ['a pending row newer than the start changes nothing', -5_000, 10_000, 0, -MINUTE],
      ] as Array<[string, number, number | null, number, number]>
    ).map(([name, newestMs, pendingMs, startMs, expectedMs]) => ({ name, newestMs, pendingMs, startMs, expectedMs })),
  )('$name', ({ newestMs, pendingMs, startMs, expectedMs }) => {
    const watermark = nextWatermark({
      newestCreatedAt: newestMs === null ? null : at(newestMs),
      pendingSince: pendingMs === null ? null : at(pendingMs),
      passStartedAt: at(startMs),
    });
    expect(watermark).toBe(at(expectedMs));
  });

  it('an empty table: the pass start less the margin; with no Date either, no watermark (the next pass reads every row)', () => {
    expect(nextWatermark({ newestCreatedAt: null, pendingSince: null, passStartedAt: at(0) })).toBe(at(-WATERMARK_MARGIN_MS));
    expect(nextWatermark({ newestCreatedAt: null, pendingSince: null, passStartedAt: null })).toBeNull();
  });

  it('with no Date, the newest row alone decides', () => {
    expect(nextWatermark({ newestCreatedAt: at(-5_000), pendingSince: null, passStartedAt: null })).toBe(at(-5_000 - MINUTE));
  });

  it('reads down far enough for a row the intake shows late: its createdAt up to twice the intake window before the newest row', () => {
    // a row created (its request sent) just before the newest one seen may show up to INTAKE_MAX_MS later
    const watermark = nextWatermark({ newestCreatedAt: at(0), pendingSince: null, passStartedAt: at(0) });
    expect(Date.parse(watermark!)).toBeLessThanOrEqual(T0 - 2 * INTAKE_MAX_MS);
    expect(reachesWatermark(at(-2 * INTAKE_MAX_MS + 1), watermark)).toBe(false);
  });
});

describe('serviceDate', () => {
  it.each([
    ['Tue, 03 Mar 2026 12:00:00 GMT', '2026-03-03T12:00:00.000Z'],
    [undefined, null],
    ['', null],
    ['not a date', null],
  ])('%s -> %s', (header, expected) => {
    expect(serviceDate(header)).toBe(expected);
  });
});

describe('reachesWatermark and later', () => {
  it('a page reaches the watermark when its oldest row is older; no watermark never does', () => {
    expect(reachesWatermark(at(-1), at(0))).toBe(true);
    expect(reachesWatermark(at(0), at(0))).toBe(false);
    expect(reachesWatermark(at(-1), null)).toBe(false);
  });

  it('later picks the later instant and ignores a missing one', () => {
    expect(later(at(1), at(2))).toBe(at(2));
    expect(later(null, at(2))).toBe(at(2));
    expect(later(at(1), null)).toBe(at(1));
  });
});

// A service in miniature: rows with a creation time (the service's clock) that become visible up to
// 30 s later, listed newest first in pages of 100; syncs that read pages down to the watermark the
// last one left, each beginning at the Date of its first answer (the service's clock, whole seconds).

interface SimRow {
  id: number;
  createdMs: number;
  visibleMs: number;
}

const WINDOW_MS = 30_000;

class Mirror {
  readonly ids = new Set<number>();
  private newest: string | null = null;
  private watermark: string | null = null;
  private synced = false;

  constructor(
    private readonly rows: SimRow[],
    private readonly pageSize = 100,
  ) {}

  /** One sync at service time `nowMs`; returns its page requests. */
  sync(nowMs: number): number {
    const visible = this.rows.filter((row) => row.visibleMs <= nowMs).sort((a, b) => b.createdMs - a.createdMs || b.id - a.id);
    const startedAt = serviceDate(new Date(T0 + nowMs).toUTCString());
    let requests = 0;
    let top: string | null = null;
    for (let start = 0; ; start += this.pageSize) {
      const page = visible.slice(start, start + this.pageSize);
      requests += 1;
      for (const row of page) this.ids.add(row.id);
      if (page.length > 0) top ??= at(page[0]!.createdMs);
      const last = page.at(-1);
      const hasNext = start + this.pageSize < visible.length;
      if (!hasNext || (this.synced && last !== undefined && reachesWatermark(at(last.createdMs), this.watermark))) break;
    }
    this.synced = true;
    this.newest = later(this.newest, top);
    this.watermark = nextWatermark({ newestCreatedAt: this.newest, pendingSince: null, passStartedAt: startedAt });
    return requests;
  }
}

describe('the watermark over a run of syncs', () => {
  it('every row visible when a sync starts is in the mirror after it, whatever the intake delays', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            createdMs: fc.integer({ min: 0, max: 300_000 }),
            delayMs: fc.oneof(fc.constant(WINDOW_MS), fc.integer({ min: 0, max: WINDOW_MS })),
          }),
          { maxLength: 400 },
        ),
        fc.array(fc.integer({ min: 1_000, max: 60_000 }), { minLength: 1, maxLength: 20 }),
        (specs, gaps) => {
          const rows = specs.map((spec, id) => ({ id, createdMs: spec.createdMs, visibleMs: spec.createdMs + spec.delayMs }));
          // small pages, so that a page does not reach far below the watermark and hide a row it should not
          const mirror = new Mirror(rows, 3);
          let now = 0;
          for (const gap of gaps) {
            now += gap;
            mirror.sync(now);
            for (const row of rows) if (row.visibleMs <= now) expect(mirror.ids.has(row.id), `row ${row.id} at ${now}`).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('idle syncs after a burst read one page once the margin has passed since the burst', () => {
    // 5,000 rows over an hour, then a burst of 1,000 rows in one second at 3,600 s; syncs every 10 s
    const rows: SimRow[] = [];
    for (let i = 0; i < 5_000; i += 1) rows.push({ id: i, createdMs: i * 720, visibleMs: i * 720 });
    for (let i = 0; i < 1_000; i += 1) rows.push({ id: 5_000 + i, createdMs: 3_600_000 + i, visibleMs: 3_600_000 + i });
    const mirror = new Mirror(rows);
    mirror.sync(3_590_000);
    const costs: number[] = [];
    for (let now = 3_605_000; now <= 3_605_000 + 3 * 60_000; now += 10_000) costs.push(mirror.sync(now));
    expect(mirror.ids.size).toBe(6_000);
    // the sync that found the burst reads it; until one starts a margin after the last sync that
    // could have missed a late row (the burst's minute), each re-reads that minute; then one page
    const firstCheap = costs.findIndex((cost) => cost === 1);
    expect(costs.slice(0, firstCheap).every((cost) => cost > 1)).toBe(true);
    expect(costs.slice(firstCheap)).toEqual(costs.slice(firstCheap).map(() => 1));
    expect(3_605_000 + (firstCheap - 1) * 10_000 - 3_601_000).toBeLessThanOrEqual(WATERMARK_MARGIN_MS + 10_000);
  });
});
