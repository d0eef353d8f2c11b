// @ts-check
// Loaded with `node --import` into a benchmarked tds: samples process.memoryUsage() every 20 ms and, at
// exit, writes to BENCH_MEMORY_PROBE as JSON (a ProbeReport) the sample taken at the highest RSS (and the
// heap's largest), so a peak over target says whether it was the JS heap, external memory (Buffers) or
// something else, and the process's own totals: peak RSS (getrusage maxRSS) and CPU time (user + system).
// With BENCH_HEAP_SNAPSHOT_MB=N it also writes one heap snapshot (to the working directory) the first
// time the used heap passes N MB, to find what holds it. With BENCH_TRACE_GC set it turns on V8's
// --trace-gc-nvp (one line per collection, on stdout). With BENCH_MEMORY_SERIES=FILE (and no BENCH_MEMORY_PROBE
// needed) it appends a sample (a ProbeSample) to FILE every second, for a long-running child's course.
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { appendFileSync, writeFileSync } from 'node:fs';

/**
 * What the probe writes at exit.
 * @typedef {NodeJS.MemoryUsage & {
 *   atMs: number,
 *   heapPeak: number,
 *   maxRssBytes: number,
 *   cpuSeconds: number,
 *   snapshot?: string,
 * }} ProbeReport
 */
/** One sample of BENCH_MEMORY_SERIES: process.memoryUsage() and when (Date.now()). @typedef {NodeJS.MemoryUsage & { at: number }} ProbeSample */

const series = process.env.BENCH_MEMORY_SERIES;
if (series) {
  setInterval(() => appendFileSync(series, `${JSON.stringify({ ...process.memoryUsage(), at: Date.now() })}\n`), 1_000).unref();
}

const out = process.env.BENCH_MEMORY_PROBE;
const snapshotAtBytes = Number(process.env.BENCH_HEAP_SNAPSHOT_MB ?? Infinity) * 1048576;
if (out) {
  if (process.env.BENCH_TRACE_GC) setFlagsFromString('--trace-gc-nvp');
  const started = Date.now();
  /** @type {NodeJS.MemoryUsage & { atMs: number }} */
  let peak = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0, atMs: 0 };
  let heapPeak = 0;
  /** @type {string | undefined} */
  let snapshot;
  const sample = () => {
    const m = process.memoryUsage();
    heapPeak = Math.max(heapPeak, m.heapTotal);
    if (m.rss > peak.rss) peak = { ...m, atMs: Date.now() - started };
    if (m.heapUsed > snapshotAtBytes && snapshot === undefined) snapshot = writeHeapSnapshot();
  };
  setInterval(sample, 20).unref();
  process.on('exit', () => {
    sample();
    const usage = process.resourceUsage();
    /** @type {ProbeReport} */
    const report = {
      ...peak,
      heapPeak,
      maxRssBytes: usage.maxRSS * 1024,
      cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6,
      ...(snapshot ? { snapshot } : {}),
    };
    writeFileSync(out, JSON.stringify(report));
  });
}
