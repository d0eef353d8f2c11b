// Loaded with `node --import` into a benchmarked tds: samples process.memoryUsage() every 20 ms and, at
// exit, writes the sample taken at the highest RSS (and the heap's largest) to BENCH_MEMORY_PROBE as JSON,
// so a peak over target says whether it was the JS heap, external memory (Buffers) or something else.
// With BENCH_HEAP_SNAPSHOT_MB=N it also writes one heap snapshot (to the working directory) the first
// time the used heap passes N MB, to find what holds it. With BENCH_TRACE_GC set it turns on V8's
// --trace-gc-nvp (one line per collection, on stdout).
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { writeFileSync } from 'node:fs';

const out = process.env.BENCH_MEMORY_PROBE;
const snapshotAtBytes = Number(process.env.BENCH_HEAP_SNAPSHOT_MB ?? Infinity) * 1048576;
if (out) {
  if (process.env.BENCH_TRACE_GC) setFlagsFromString('--trace-gc-nvp');
  const started = Date.now();
  let peak = { rss: 0 };
  let heapPeak = 0;
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
    writeFileSync(out, JSON.stringify({ ...peak, heapPeak, ...(snapshot ? { snapshot } : {}) }));
  });
}
