#!/usr/bin/env node
// @ts-check
// `tds sync`: a full mirror of the 1,000,000-row table against the CSV export of it, an incremental sync
// under the real row-read limit, and the cost of an idle `--follow` poll. Targets (from the issue):
//
// 1. Emulator child with rate limits off, `--rows 1000000` and `--data FILE` (its state is saved on stop).
//    `tds rows Generated --format csv -o FILE`, then a full `tds sync Generated --db FILE` into a fresh file,
//    both with TDS_RATE_SCALE high enough that the client's limiter never waits.
//    Targets: sync time and CPU <= 1.3x the export's (same emulator); sync peak RSS <= 250 MB.
// 1c. --lake (sync/lake.mjs): the same full sync with and without --lake, the lake's size, 1,000 rows more.
//    Each ratio of 1, 1b and 1c is the median of paired, alternating runs (A B A B …: --repeat N pairs, at least 5,
//    support.mjs pairedRuns), the load printed before and after; a peak RSS target is on the median too.
// 2. Emulator child from the same --data file with its real limits (scale 1); 1,000 new rows added (admin
//    route); `tds sync --db FILE` (incremental, the client's real limiter).
//    Targets: <= 12 row requests (a re-export would need 10,000); wall time <= 15 s.
// 1b. History, on the same emulator child and mirror as 1: a `--full` pass with no row changed; then
//    CHANGED rows (100,000) changed through the emulator's admin route (PATCH, 32 at a time); the same
//    `--full` pass again, which moves each replaced version into generated__history; then the two in pairs, each
//    over a copy of the mirror as it was after the change or before it.
//    Targets: the changed pass <= 1.2x the unchanged one; the peak RSS of each <= 250 MB; the mirror
//    file after it <= 1.3x its size before it; the unchanged pass adds 0 rows (and 0 bytes) of history.
//    Then `tds diff Generated -o FILE.ndjson` (the CHANGED updated rows): <= 2 s and <= 250 MB peak RSS.
// 3. Emulator child from the --data file saved by 2 (real limits): `tds sync --follow --every 3` on the
//    mirror, idle, its polls counted in the emulator's request log. (a) Within a minute of the 1,000-row
//    burst of 2: reported, no target. A sync reads again the rows created in the minute before it began
//    (the watermark margin: webhook rows show up to 30 s late with their arrival time, and the local
//    clock may run ahead), so these polls read the burst again until it is older than that.
//    (b) After the clock moved 2 minutes and one row came (the burst older than the margin).
//    Target: one row request per poll. Then SIGINT.
// 4. A first sync of 5,000 rows, and one of 10 tables of 500 rows, at the real limit on loopback and 200 ms away
//    (sync/far-sync.mjs says the targets).
// 5. Freshness (sync/freshness.mjs), at rate scale BENCH_FRESH_SCALE (4): 10 followed tables of 20,000 old rows in
//    all (P = 200 pages); (a) 200 changes to old rows (edits, re-runs, deletions) at seeded random moments, each in
//    the mirror and --changes within 1.2 x --max-stale (10m); row requests in any minute <= s x 60 + 1; (b) at
//    --max-stale 2m, less than the share allows: each within 1.2 x P / (60 s), "too large" said once; (c) an idle
//    round = 0 row requests + 1 listing; a webhook row in the mirror within --every + the intake window.
//    A verification page costs the follower about 0.1 s of CPU (opening the mirror, the checkpoint at its close) and
//    0.3-0.5 s of real time on a loaded machine: scale 4 leaves it 0.5 s a page at the share, and each case needs
//    about two passes over the 200 pages (about 3 minutes each). A rate scale it cannot keep up with shows as
//    a verification behind its schedule (a less loaded machine can take a higher scale).
// 6. A long --follow (sync/long-follow.mjs): one hour at rate scale BENCH_LONG_SCALE (10) under --churn; peak RSS
//    after the first 10 minutes grows <= 10 %, open file descriptors flat.
//    BENCH_SYNC_ONLY=first runs 1 and 1b alone, BENCH_SYNC_ONLY=lake 1, 1b and 1c, BENCH_SYNC_ONLY=freshness runs 5 and 6 alone, BENCH_SYNC_ONLY=long-follow 6 alone (on 5's tables);
//    BENCH_FRESH_CASES (abc: which of 5's cases), BENCH_FRESH_ROWS, BENCH_FRESH_CHANGES, BENCH_FRESH_SHARE_CHANGES,
//    BENCH_FRESH_MAX_STALE_MIN, BENCH_FRESH_SEED (1), BENCH_LONG_MINUTES (60; 0 skips 6), BENCH_FOLLOWER_NODE_ARGS
//    (sync/follower.mjs).
//
// Run: npm run bench -- sync [--repeat N]     (exits 1 when a target is missed; traffic only to 127.0.0.1)
// Env: BENCH_SKIP_FAR=1, BENCH_SYNC_LATENCIES (0,200), BENCH_ROWS (default 1000000), BENCH_CHANGED (100000), BENCH_ADDED (1000), BENCH_POLLS (3), BENCH_EVERY (seconds, 3),
// BENCH_HEAP_SNAPSHOT_MB / BENCH_TRACE_GC (see memory-probe.mjs).
// The phases are in sync/ (first-sync.mjs with history.mjs, incremental.mjs, idle-follow.mjs); each starts from
// the mirror and the emulator state the one before left.
import { rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { load } from './support.mjs';
import { createContext } from './sync/context.mjs';
import { fullSync } from './sync/first-sync.mjs';
import { freshTables, freshness } from './sync/freshness.mjs';
import { idleFollow } from './sync/idle-follow.mjs';
import { incrementalSync } from './sync/incremental.mjs';
import { lakeSync } from './sync/lake.mjs';
import { longFollow } from './sync/long-follow.mjs';
import { farSync } from './sync/far-sync.mjs';

const ctx = createContext();

console.log(`load average before: ${load()} on ${availableParallelism()} CPUs`);
try {
  const only = process.env.BENCH_SYNC_ONLY;
  if (only !== 'freshness' && only !== 'long-follow') await fullSync(ctx);
  if (only === 'lake') await lakeSync(ctx);
  if (only === undefined || only === '') {
    if (process.env.BENCH_SKIP_LAKE !== '1') await lakeSync(ctx);
    await incrementalSync(ctx);
    await idleFollow(ctx);
    if (process.env.BENCH_SKIP_FAR !== '1') await farSync(ctx);
  }
  if (only === 'long-follow') await freshTables(ctx);
  else if (only !== 'first' && only !== 'lake') await freshness(ctx);
  if (only !== 'first' && only !== 'lake') await longFollow(ctx);
} finally {
  // A phase that threw left children running; none outlives the bench.
  for (const cleanup of ctx.cleanups) cleanup();
  await Promise.all(ctx.emulators.map((emulator) => emulator.stop()));
  rmSync(ctx.dir, { recursive: true, force: true });
}
console.log(`load average after: ${load()}`);
process.exit(ctx.missed() ? 1 : 0);
