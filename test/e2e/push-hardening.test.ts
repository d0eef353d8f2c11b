import { spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { expectSameRecords, ndjson, people, tablePayloads, webhookPosts } from '../push/helpers/emulator.js';
import { accepted, postedObjects } from '../helpers/scripted-server.js';
import { waitUntil } from './export-support.js';
import { holdArrival } from '../helpers/arrival-hold.js';
import { pushTest as it, scriptedWebhook } from './push-support.js';

// Regression tests of issue 15 (hardening) for push: a crash, a second run or a full disk must never
// lose or duplicate a record, and no input may crash tds or change data on the way.

describe('a crash while batches wait for their rate-limit slot (item 1)', () => {
  it('journals as sending only the batches whose requests left, so --accept-uncertain loses nothing', async ({ openHarness }) => {
    // HEAD is webhook request 1, batch 1 is request 2; batch 2 (request 3) is taken in and never answered
    const harness = await openHarness({ webhookFaults: 'stall@3' });
    const records = people(100);
    const path = await harness.file('in.ndjson', ndjson(records));
    const args = ['push', harness.inbox.url, path, '--batch-size', '10'];
    const run = harness.spawn([...args, '--rate', '2'], { env: { TDS_RATE_SCALE: undefined } }); // 2 a second, not scaled
    // batch 3 has left (after the stalled batch 2): the batches after it wait for their slot, at 2 a second
    await waitUntil(() => webhookPosts(harness.emu).length >= 3, 15_000, 'batch 3 sent');
    run.child.kill('SIGKILL');
    await run.exit;

    // what reached the webhook before the kill: every uncertain batch must be among them
    const received = new Set(
      (await tablePayloads(harness.emu, harness.inbox.id)).map((object) => Math.ceil((object as { id: number }).id / 10)),
    );
    const plan = await harness.tds([...args, '--resume', '--dry-run', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    const uncertain = (JSON.parse(plan.stdout) as { uncertain: { batch: string }[] }).uncertain.map((batch) => Number(batch.batch));
    expect(uncertain).toContain(2);
    for (const batch of uncertain) expect(received, `batch ${batch} was reported uncertain but never sent`).toContain(batch);

    const settled = await harness.tds([...args, '--resume', '--accept-uncertain']);
    expect(settled.code, settled.stderr).toBe(0);
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);
  }, 30_000);

  it('concludes uncertain batches one by one: --accept-uncertain for those in the table, --resend-uncertain for the others', async ({
    openHarness,
  }) => {
    // batch 2 (request 3, after the HEAD) answers 500: uncertain; the user finds it missing and resends just that one
    const server = await scriptedWebhook((request) => (request.n === 3 ? { status: 500 } : accepted(request)));
    const records = people(40);
    const harness = await openHarness();
    const path = await harness.file('in.ndjson', ndjson(records));
    const args = ['push', server.url, path, '--batch-size', '10', '--concurrency', '1'];
    const first = await harness.tds(args);
    expect(first.code, first.stderr).toBe(7);
    expect(first.stderr).toMatch(/--resume --accept-uncertain 2 for the batches whose records are there/);
    const resumed = await harness.tds([...args, '--resume', '--resend-uncertain', '2']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const ids = server.requests.flatMap((request) => postedObjects(request).map((object) => (object as { id: number }).id));
    // batch 2 twice (the 500 and its resend), every other record once
    const expected = [...records.map((record) => record.id as number), ...Array.from({ length: 10 }, (_, i) => 11 + i)];
    expect(ids.sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b));
  });
});

describe('two runs at once (item 2)', () => {
  it('a second --resume of the same journal exits 2 while the first holds it; every record arrives once', async ({ openHarness }) => {
    // the first resume's first batch is held on its arrival until the second resume has ended: the first
    // holds the journal then, however fast either runs
    const batch = holdArrival(({ method, path }) => method === 'POST' && path.startsWith('/v1/webhook/'));
    const harness = await openHarness({ webhookFaults: '500@3', onArrival: batch.onArrival });
    // the first run stops at the 500 with at most 4 requests in flight (a window of its own choosing could
    // hold all 100 batches on loopback): most batches are left for the resumes
    const records = people(1000);
    const path = await harness.file('in.ndjson', ndjson(records));
    const args = ['push', harness.inbox.url, path, '--batch-size', '10', '--concurrency', '4'];
    const first = await harness.tds(args);
    expect(first.code, first.stderr).toBe(7);

    batch.arm();
    const held = harness.spawn([...args, '--resume', '--accept-uncertain']);
    await batch.arrived;
    const second = await harness.tds([...args, '--resume', '--accept-uncertain']);
    batch.release();
    const code = await held.exit;
    expect(second.code, second.stderr).toBe(2);
    expect(second.stderr).toMatch(/another tds push is using the journal .*in\.ndjson\.[0-9a-f]{16}\.tds-journal/);
    expect(code).toBe(0);
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), records);
  }, 30_000);
});

describe('numbers and deep records (items 5 and 6)', () => {
  it('sends number literals exactly as read, never as the nearest double', async ({ openHarness }) => {
    const server = await scriptedWebhook(accepted);
    const harness = await openHarness();
    const line = '{"id":9007199254740993,"a":123456789012345678901234567890,"b":1e400,"c":0.1}';
    const path = await harness.file('in.ndjson', `${line}\n`);
    const result = await harness.tds(['push', server.url, path]);
    expect(result.code, result.stderr).toBe(0);
    const post = server.requests.find((request) => request.method === 'POST')!;
    expect(post.body).toBe(`[${line}]`);
    const json = await harness.file('in.json', `{"data": [${line}, {"n": 12345678901234567890}]}`);
    const second = await harness.tds(['push', server.url, json, '--journal', join(harness.dir, 'j2')]);
    expect(second.code, second.stderr).toBe(0);
    expect(server.requests.at(-1)!.body).toBe(`[${line},{"n":12345678901234567890}]`);
  });

  it('a record nested thousands of levels deep exits 2 naming the record, without a stack trace', async ({ openHarness }) => {
    const harness = await openHarness();
    let deep = '{"a":1}';
    for (let i = 0; i < 5000; i += 1) deep = `{"x":${deep}}`;
    const path = await harness.file('deep.ndjson', `{"ok":1}\n${deep}\n`);
    const result = await harness.tds(['push', harness.inbox.url, path, '--dry-run']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/^tds: .*deep\.ndjson: record 2: the record is nested too deeply to be sent/m);
    expect(result.stderr).not.toMatch(/RangeError|bug in tds|at .*\.js/);
  });

  it('a line that is not JSON is placed by line and column, without quoting it', async ({ openHarness }) => {
    const harness = await openHarness();
    const path = await harness.file('bad.ndjson', '{"a":1}\n{"token": tds_secret_value_123}\n');
    const result = await harness.tds(['push', harness.inbox.url, path, '--dry-run']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/bad\.ndjson: line 2: not valid JSON at column 11: unexpected character/);
    expect(result.stderr).not.toContain('tds_secret');
  });
});

/** A folder on a 256 KiB tmpfs, when this machine lets the tests mount one (root on Linux). */
async function tinyDisk(path: string): Promise<boolean> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  await mkdir(path, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', path]).status === 0;
}

describe('a full disk under the journal (item 3)', () => {
  it('stops before sending a batch it could not journal, cuts the torn line off, and resumes without a duplicate', async ({
    openHarness,
    skip,
  }) => {
    const harness = await openHarness();
    const disk = join(harness.dir, 'disk');
    if (!(await tinyDisk(disk))) return skip();
    try {
      const server = await scriptedWebhook(accepted);
      const records = people(400);
      const path = await harness.file('in.ndjson', ndjson(records));
      // fill the disk so that the journal has room for a few dozen lines only
      await writeFile(join(disk, 'filler'), Buffer.alloc(240 * 1024));
      const args = ['push', server.url, path, '--batch-size', '1', '--concurrency', '1', '--journal', join(disk, 'j')];
      const full = await harness.tds(args);
      expect(full.code, full.stderr).toBe(1);
      expect(full.stderr).toMatch(/^tds: cannot write the journal .*: the disk is full \(ENOSPC\)$/m);
      expect(full.stderr).toMatch(/uncertain +0/);
      const sentBeforeFull = server.requests.filter((request) => request.method === 'POST').length;
      expect(sentBeforeFull).toBeGreaterThan(0);
      expect(sentBeforeFull).toBeLessThan(400);

      await rm(join(disk, 'filler'));
      const resumed = await harness.tds([...args, '--resume', '--accept-uncertain']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const ids = server.requests.flatMap((request) => postedObjects(request).map((object) => (object as { id: number }).id));
      expect(ids.sort((a, b) => a - b)).toEqual(records.map((record) => record.id));

      // the journal holds whole lines only (a torn one left before the resume's lines would make it damaged):
      // read again, it shows every record sent and nothing left to send
      const again = await harness.tds([...args, '--resume', '--dry-run', '--json']);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ records: { alreadySent: 400, uncertain: 0 }, plan: { batches: 0 } });
    } finally {
      spawnSync('umount', [disk]);
    }
  }, 30_000);
});
