#!/usr/bin/env node
// @ts-check
// `tds sync`: a full mirror of the 1,000,000-row table against the CSV export of it, an incremental sync
// under the real row-read limit, and the cost of an idle `--follow` poll. Targets (from the issue):
//
// 1. Emulator child with rate limits off, `--rows 1000000` and `--data FILE` (its state is saved on stop).
//    `tds rows Generated --format csv -o FILE`, then a full `tds sync Generated --db FILE` into a fresh file,
//    both with TDS_RATE_SCALE high enough that client pacing never waits.
//    Targets: sync time <= 1.5x the export's time (same run, same emulator); sync peak RSS <= 300 MB.
// 1c. --lake (sync/lake.mjs): the same full sync with and without --lake, the lake's size, 1,000 rows more.
// 2. Emulator child from the same --data file with its real limits (scale 1); 1,000 new rows added (admin
//    route); `tds sync --db FILE` (incremental, the client's real pacing).
//    Targets: <= 12 row requests (a re-export would need 10,000); wall time <= 15 s.
// 1b. History, on the same emulator child and mirror as 1: a `--full` pass with no row changed; then
//    CHANGED rows (100,000) changed through the emulator's admin route (PATCH, 32 at a time); the same
//    `--full` pass again, which moves each replaced version into generated__history.
//    Targets: the changed pass <= 1.2x the unchanged one (same run); its peak RSS <= 300 MB; the mirror
//    file after it <= 1.3x its size before it; the unchanged pass adds 0 rows (and 0 bytes) of history.
//    Then `tds diff Generated -o FILE.ndjson` (the CHANGED updated rows): <= 5 s and <= 300 MB peak RSS.
// 3. Emulator child from the --data file saved by 2 (real limits): `tds sync --follow --every 3` on the
//    mirror, idle, its polls counted in the emulator's request log. (a) Within a minute of the 1,000-row
//    burst of 2: reported, no target. A sync reads again the rows created in the minute before it began
//    (the watermark margin: webhook rows show up to 30 s late with their arrival time, and the local
//    clock may run ahead), so these polls read the burst again until it is older than that.
//    (b) After the clock moved 2 minutes and one row came (the burst older than the margin).
//    Target: one row request per poll. Then SIGINT.
// 4. A first sync of 5,000 rows at the real limit on loopback and 200 ms away (sync/far-sync.mjs says the target).
// 5. Freshness (sync/freshness.mjs), at a rate scale: 10 followed tables; an idle round = 0 row requests + 1
//    listing; changes to old rows (edits, re-runs, deletions) each in --changes within 1.2 x --max-stale; row
//    requests in any minute <= s x 60 + 1. BENCH_SYNC_ONLY=freshness runs this phase alone; BENCH_FRESH_SCALE (20),
//    BENCH_FRESH_ROWS (2000), BENCH_FRESH_CHANGES (30), BENCH_FRESH_MAX_STALE_MIN (20).
//
// Run: npm run bench -- sync     (exits 1 when a target is missed; traffic only to 127.0.0.1)
// Env: BENCH_SKIP_FAR=1, BENCH_SYNC_LATENCIES (0,200), BENCH_ROWS (default 1000000), BENCH_CHANGED (100000), BENCH_ADDED (1000), BENCH_POLLS (3), BENCH_EVERY (seconds, 3),
// BENCH_HEAP_SNAPSHOT_MB / BENCH_TRACE_GC (see memory-probe.mjs).
// The phases are in sync/ (first-sync.mjs with history.mjs, incremental.mjs, idle-follow.mjs); each starts from
// the mirror and the emulator state the one before left.
import { rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { load } from './support.mjs';
import { createContext } from './sync/context.mjs';
import { fullSync } from './sync/first-sync.mjs';
import { freshness } from './sync/freshness.mjs';
import { idleFollow } from './sync/idle-follow.mjs';
import { incrementalSync } from './sync/incremental.mjs';
import { lakeSync } from './sync/lake.mjs';
import { farSync } from './sync/far-sync.mjs';

const ctx = createContext();

console.log(`load average before: ${load()} on ${availableParallelism()} CPUs`);
try {
  if (process.env.BENCH_SYNC_ONLY !== 'freshness') {
    await fullSync(ctx);
    if (process.env.BENCH_SKIP_LAKE !== '1') await lakeSync(ctx);
    await incrementalSync(ctx);
    await idleFollow(ctx);
    if (process.env.BENCH_SKIP_FAR !== '1') await farSync(ctx);
  }
  await freshness(ctx);
} finally {
  // A phase that threw left children running; none outlives the bench.
  for (const cleanup of ctx.cleanups) cleanup();
  await Promise.all(ctx.emulators.map((emulator) => emulator.stop()));
  rmSync(ctx.dir, { recursive: true, force: true });
}
console.log(`load average after: ${load()}`);
process.exit(ctx.missed() ? 1 : 0);
