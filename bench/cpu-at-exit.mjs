// @ts-check
// Loaded with `node --import` into a short-lived child (start-up figures): at exit, writes to BENCH_CPU_AT_EXIT its
// CPU time (user + system, every thread) and peak RSS as JSON, `{"cpuMs": …, "maxRssKb": …}`. Nothing else: the
// figures of a 100 ms process must not carry a probe's own work.
import { writeFileSync } from 'node:fs';

const out = process.env.BENCH_CPU_AT_EXIT;
if (out) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    writeFileSync(out, JSON.stringify({ cpuMs: (user + system) / 1000, maxRssKb: process.resourceUsage().maxRSS }));
  });
}
