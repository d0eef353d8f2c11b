#!/usr/bin/env node
// Emulator throughput on the 1,000,000-row generated table: load time, rows/s served for plain pages and for
// filtered queries (sequential keep-alive client in the same process, so one core runs both ends), peak RSS.
// Run: npm run build && node bench/emulator.bench.js   (target: >= 20,000 rows/s per core for plain pages)
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { startEmulator } from '#dist/emulator/index.js';

const ROWS = 1_000_000;
const PAGES = 200;

const loadStart = performance.now();
const emu = await startEmulator({ port: 0, rows: ROWS, rateLimits: false });
const loadMs = performance.now() - loadStart;
const client = new Client(new URL(emu.baseUrl).origin, { pipelining: 1 });
const headers = { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' };
const base = new URL(emu.baseUrl).pathname;

async function call(method, path, body) {
  const response = await client.request({ method, path: `${base}${path}`, headers, body: body && JSON.stringify(body) });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${method} ${path}: HTTP ${response.statusCode} ${text}`);
  return { json: JSON.parse(text), bytes: text.length };
}

const { json: tables } = await call('GET', '/tables');
const table = tables.tables.find((candidate) => candidate.name === 'Generated');
const { json: schema } = await call('GET', `/tables/${table.id}/schema`);
const field = Object.fromEntries(schema.fields.map((f) => [f.name, f.id]));

/** Follows nextCursor for up to `pages` pages; returns rows, bytes, wall ms and CPU ms. */
async function walk(pages, next) {
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  let cursor;
  let rows = 0;
  let bytes = 0;
  for (let page = 0; page < pages; page += 1) {
    const { json, bytes: size } = await next(cursor);
    rows += json.rows.length;
    bytes += size;
    if (!json.hasNextPage) break;
    cursor = json.nextCursor;
  }
  const cpu = process.cpuUsage(cpuStart);
  return { rows, bytes, ms: performance.now() - start, cpuMs: (cpu.user + cpu.system) / 1000 };
}

function report(name, { rows, bytes, ms, cpuMs }) {
  const perSecond = Math.round((rows / ms) * 1000);
  const perCpuSecond = Math.round((rows / cpuMs) * 1000);
  console.log(
    `${name.padEnd(34)} ${String(rows).padStart(7)} rows in ${ms.toFixed(0).padStart(5)} ms: ` +
      `${perSecond.toLocaleString('en-US').padStart(8)} rows/s (${perCpuSecond.toLocaleString('en-US')} rows per CPU-second), ` +
      `${(bytes / 1e6).toFixed(1)} MB`,
  );
  return perSecond;
}

const query =
  (filters, extra = {}) =>
  (cursor) =>
    call('POST', `/tables/${table.id}/rows/query`, {
      limit: 100,
      ...extra,
      ...(filters ? { filters } : {}),
      ...(cursor ? { cursor } : {}),
    });

await walk(20, (cursor) => call('GET', `/tables/${table.id}/rows?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)); // warm-up

console.log(`emulator: ${ROWS.toLocaleString('en-US')} generated rows loaded in ${loadMs.toFixed(0)} ms`);
const plain = report(
  `plain pages (GET rows, ${PAGES} pages)`,
  await walk(PAGES, (cursor) => call('GET', `/tables/${table.id}/rows?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)),
);
report('filtered: Plan in [Pro] (~25%)', await walk(PAGES, query({ rules: [{ fieldId: field.plan, operator: 'in', value: ['Pro'] }] })));
report(
  'filtered: Active and Amount > 5000',
  await walk(
    PAGES,
    query({
      rules: [
        { fieldId: field.active, operator: '=', value: true },
        { fieldId: field.amount, operator: '>', value: 5000 },
      ],
    }),
  ),
);
report('search: q "lovelace" (~5%)', await walk(PAGES, query(undefined, { q: 'lovelace' })));
report('filtered: Amount > 9990 (~0.1%)', await walk(20, query({ rules: [{ fieldId: field.amount, operator: '>', value: 9990 }] })));
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

await client.close();
await emu.close();
if (plain < 20_000) {
  console.log(`plain pages below the 20,000 rows/s target`);
  process.exitCode = 1;
}
