// @ts-check
// The sizes, timings and targets of the sync bench (sync.bench.js says what each phase measures).
export const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
export const ADDED = Number(process.env.BENCH_ADDED ?? 1_000);
export const CHANGED = Number(process.env.BENCH_CHANGED ?? 100_000);
export const POLLS = Number(process.env.BENCH_POLLS ?? 3);
export const EVERY_SECONDS = Number(process.env.BENCH_EVERY ?? 3);
export const PAGE = 100;
export const FAST = { TDS_RATE_SCALE: '1000000' }; // the client's limiter never waits (the emulator has no limits)
/** How far phase 3 (b) moves the emulator's clock: more than the sync's watermark margin (60 s). */
export const AGE_MS = 120_000;

export const TARGET = {
  syncVsExport: 1.3,
  syncPeakMb: 250,
  incrementalRequests: 12,
  incrementalSeconds: 15,
  requestsPerIdlePoll: 1,
  changedVsUnchanged: 1.2,
  fileGrowth: 1.3,
  diffSeconds: 2,
  diffPeakMb: 250,
};
