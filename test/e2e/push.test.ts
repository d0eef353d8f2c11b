import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import {
  expectSameRecords,
  journalOf,
  ndjson,
  people,
  PUSH_EMULATOR,
  tablePayloads,
  webhookPosts,
  webhookRequests,
} from '../push/helpers/emulator.js';
import { pushTest as test, stdinPush } from './push-support.js';

// End to end: the command program (in-process, in the harness's folder) against the emulator, one
// emulator per test, tests running concurrently.

describe.concurrent('tds push: input formats', () => {
  test('pushes a CSV with quoted commas and newlines, CRLF, a BOM, empty fields, empty rows and unicode, each record once', async ({
    pushHarness: harness,
  }) => {
    const csv =
      '\uFEFFemail,name,note\r\n' +
      'a@x.io,"Lovelace, Ada","line 1\r\nline 2"\r\n' +
      'b@x.io,,東京 😀\r\n' +
      ',,\r\n' +
      'c@x.io,"say ""hi""",\r\n';
    const path = await harness.file('people.csv', csv);
    const result = await harness.tds(['push', harness.inbox.url, path, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.records).toMatchObject({ read: 4, sent: 3, skipped: 1, rejected: 0, uncertain: 0, notSent: 0 });
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), [
      { email: 'a@x.io', name: 'Lovelace, Ada', note: 'line 1\r\nline 2' },
      { email: 'b@x.io', note: '東京 😀' },
      { email: 'c@x.io', name: 'say "hi"' },
    ]);
  });

  test('infers types and nests keys; mapped columns fill in', async ({ pushHarness: harness }) => {
    const path = await harness.file('signups.csv', 'email,name,plan,seats,address.city,zip\nz@x.io,Zed,pro,7,Oslo,00150\n');
    const result = await harness.tds(['push', harness.signups.url, path, '--types', 'infer', '--nest', '.']);
    expect(result.code, result.stderr).toBe(0);
    const payloads = await tablePayloads(harness.emu, harness.signups.id);
    expect(payloads).toContainEqual({ email: 'z@x.io', name: 'Zed', plan: 'pro', seats: 7, address: { city: 'Oslo' }, zip: '00150' });
  });

  test('pushes TSV, NDJSON and the three JSON forms, from files and stdin', async ({ pushHarness: harness }) => {
    const records = people(6);
    await harness.file('a.tsv', 'id\temail\n1\tt1@x.io\n2\tt2@x.io\n');
    await harness.file('b.ndjson', ndjson(records.slice(0, 2)));
    await harness.file('c.json', JSON.stringify(records.slice(2, 4)));
    await harness.file('d.json', JSON.stringify({ data: records.slice(4, 5) }));
    const runs = [
      await harness.tds(['push', harness.inbox.url, 'a.tsv']),
      await harness.tds(['push', harness.inbox.url, 'b.ndjson']),
      await harness.tds(['push', harness.inbox.url, 'c.json']),
      await harness.tds(['push', harness.inbox.url, 'd.json']),
      await harness.tds(['push', harness.inbox.url, '-', '--input-format', 'json'], { input: JSON.stringify(records[5]) }),
    ];
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    expect(runs[4]!.stderr).toContain('without --journal');
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), [
      { id: '1', email: 't1@x.io' },
      { id: '2', email: 't2@x.io' },
      ...records,
    ]);
  });

  test.for([
    ['dup.csv', 'email,name,email\n1,2,3\n', [], /line 1: duplicate column names in the header: "email" \(columns 1, 3\)/],
    ['ragged.csv', 'a,b\n1,2\n3\n4,5\n', [], /record 2, line 3: the row has 1 fields, the header has 2/],
    ['bad.ndjson', '{"a":1}\n{"a":2}\n{oops}\n', [], /line 3: not valid JSON/],
    ['scalar.json', '[{"a":1}, 5]', [], /record 2, line 1: not an object \(a number\)/],
    ['conflict.csv', 'a,a.b\n1,2\n', ['--nest', '.'], /record 1: --nest: key "a\.b" conflicts with "a"/],
  ] as const)(
    'refuses bad input %s with exit 2 and the place, sending no record',
    async ([name, content, extra, message], { pushHarness: harness }) => {
      // the bad record is last: with --validate-first the whole file is checked before the first POST
      const path = await harness.file(name, content);
      const result = await harness.tds(['push', harness.inbox.url, path, '--validate-first', '--batch-size', '1', ...extra]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(webhookPosts(harness.emu)).toEqual([]);
      expect(await journalOf(path)).toBeUndefined();
    },
  );

  test('validates stdin as it streams: a bad record stops the push there (exit 2), after the batches before it', async ({
    pushHarness: harness,
  }) => {
    const input = ndjson(people(25)) + '{"id": oops}\n' + ndjson(people(5, 26));
    const args = stdinPush(harness, 's.journal');
    const result = await harness.tds(args, { input });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/tds: stdin: line 26: not valid JSON/);
    expect(result.stderr).toMatch(/sent\s+20 in 2 batches/);
    expect(webhookPosts(harness.emu).map((post) => post.objects)).toEqual([10, 10]);
    // fixed, the same stdin resumes: the two batches sent are not sent again
    const fixed = await harness.tds([...args, '--resume'], { input: ndjson(people(30)) });
    expect(fixed.code, fixed.stderr).toBe(0);
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), people(30));
  });

  test('a file is sent as it is read: a bad record stops there, and the fixed file resumes', async ({ pushHarness: harness }) => {
    const path = await harness.file('p.ndjson', ndjson(people(25)) + '[1]\n' + ndjson(people(5, 27)));
    const args = ['push', harness.inbox.url, path, '--batch-size', '10', '--concurrency', '1'];
    const result = await harness.tds(args);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/p\.ndjson: record 26, line 26: not an object \(an array\)/);
    expect(webhookPosts(harness.emu).map((post) => post.objects)).toEqual([10, 10]);
    await writeFile(path, ndjson(people(31)));
    const fixed = await harness.tds([...args, '--resume']);
    expect(fixed.code, fixed.stderr).toBe(0);
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), people(31));
  });

  test('accepts ragged rows with --relax-columns', async ({ pushHarness: harness }) => {
    const path = await harness.file('ragged.csv', 'email,name\na@x.io\nb@x.io,B,extra\n');
    const result = await harness.tds(['push', harness.inbox.url, path, '--relax-columns']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('1 rows had values past the last header column');
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), [{ email: 'a@x.io' }, { email: 'b@x.io', name: 'B' }]);
  });
});

describe.concurrent('tds push: batching', () => {
  test('never sends more than 500 objects or 1,000,000 bytes in a request', async ({ pushHarness: harness }) => {
    // 1,200 records of about 2 KB: the byte limit cuts first (about 480 a batch)
    const pad = 'x'.repeat(2000);
    const records = Array.from({ length: 1200 }, (_, i) => ({ id: i + 1, pad }));
    const path = await harness.file('big.ndjson', ndjson(records));
    const result = await harness.tds(['push', harness.inbox.url, path, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const posts = webhookPosts(harness.emu);
    expect(posts.every((post) => post.status === 200 && post.objects! <= 500 && post.bodyBytes! <= 1_000_000)).toBe(true);
    expect(posts.reduce((sum, post) => sum + post.objects!, 0)).toBe(1200);
    expect(Math.max(...posts.map((post) => post.bodyBytes!))).toBeGreaterThan(900_000);
    // small records: the count cuts
    const small = await harness.file('small.ndjson', ndjson(people(1001)));
    expect((await harness.tds(['push', harness.signups.url, small])).code).toBe(0);
    expect(
      webhookPosts(harness.emu)
        .slice(posts.length)
        .map((post) => post.objects),
    ).toEqual([500, 500, 1]);
    const summary = JSON.parse(result.stdout);
    expect(summary.batches.sent).toBe(posts.length);
  });

  test('honours --batch-size', async ({ pushHarness: harness }) => {
    const path = await harness.file('p.ndjson', ndjson(people(25)));
    const result = await harness.tds(['push', harness.inbox.url, path, '--batch-size', '10', '--validate-first'], {
      env: { TDS_FORCE_TTY: '1' },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(webhookPosts(harness.emu).map((post) => post.objects)).toEqual([10, 10, 5]);
    // on a terminal, progress is a spinner line on stderr (here both passes of --validate-first)
    expect(result.stderr).toMatch(/checking .*p\.ndjson: \d+ records/);
    expect(result.stderr).toMatch(/read \d+ · sent \d+ · \d+ in flight · [\d,]+ records\/s/);
    expect(result.stdout).toBe('');
  });

  test('rejects an object too large to send alone with its record number, sends the rest, and ends with exit 7', async ({
    pushHarness: harness,
  }) => {
    const records = [...people(2), { id: 3, blob: 'y'.repeat(1_000_100) }, ...people(2, 4)];
    const path = await harness.file('with-big.ndjson', ndjson(records));
    const result = await harness.tds(['push', harness.inbox.url, path, '--rejects', 'rejects.ndjson']);
    expect(result.code, result.stderr).toBe(7);
    expect(result.stderr).toMatch(/1 records were rejected \(records 3\)/);
    expect(result.stderr).toContain('rejects.ndjson');
    const rejects = (await readFile(`${harness.dir}/rejects.ndjson`, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(rejects).toEqual([
      { record: 3, reason: expect.stringMatching(/1000\d+ bytes; a request body may hold at most 1000000 bytes/), object: records[2] },
    ]);
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), [...people(2), ...people(2, 4)]);
    // resuming sends nothing more, still lists the rejected record, and still ends with exit 7
    const resumed = await harness.tds(['push', harness.inbox.url, path, '--rejects', 'rejects.ndjson', '--resume']);
    expect(resumed.code, resumed.stderr).toBe(7);
    expect(resumed.stderr).toContain('nothing to send');
    expect(await readFile(`${harness.dir}/rejects.ndjson`, 'utf8')).toContain('{"record":3,');
    expect(webhookPosts(harness.emu)).toHaveLength(1);
  });
});

describe.concurrent('tds push: checks and dry runs', () => {
  test('--dry-run reads, validates and batches, prints the plan and sends nothing, not even HEAD', async ({ pushHarness: harness }) => {
    const path = await harness.file('p.ndjson', ndjson([...people(1200), {}, { big: 'z'.repeat(1_000_001) }]));
    const result = await harness.tds(['push', harness.inbox.url, path, '--dry-run', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      dryRun: true,
      records: { read: 1202, skipped: 1, rejected: 1, sent: 0 },
      batches: { total: 3 },
      plan: { batches: 3, records: 1200 },
      rejectedRecords: [1202],
      journal: null,
    });
    const human = await harness.tds(['push', path, '--dry-run']);
    expect(human.stderr).toMatch(/dry run of .*p\.ndjson \(ndjson\): nothing was sent/);
    expect(human.stderr).toMatch(/to send\s+1,200 records in 3 requests/);
    expect(webhookRequests(harness.emu)).toEqual([]);
  });

  test('--check: HEAD only; exit 0 when the webhook exists, 4 when not', async ({ pushHarness: harness }) => {
    const ok = await harness.tds(['push', harness.inbox.url, '--check']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/webhook exists: http:\/\/127\.0\.0\.1:\d+\/v1\/webhook\/….{4}/);
    const missing = await harness.tds(['push', `${harness.inbox.url}x`, '--check']);
    expect(missing.code, missing.stderr).toBe(4);
    expect(webhookRequests(harness.emu).map((entry) => [entry.method, entry.status])).toEqual([
      ['HEAD', 200],
      ['HEAD', 404],
    ]);
  });

  test('stops on a webhook that does not exist before any POST (exit 4)', async ({ pushHarness: harness }) => {
    const path = await harness.file('p.ndjson', ndjson(people(3)));
    const result = await harness.tds(['push', `${harness.inbox.url}nope`, path]);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/does not exist \(HTTP 404\); nothing was sent/);
    expect(webhookPosts(harness.emu)).toEqual([]);
  });

  test('takes the webhook from @NAME or TDS_WEBHOOK_URL, and refuses plain http to another host', async ({ pushHarness: harness }) => {
    const path = await harness.file('p.ndjson', ndjson(people(2)));
    const saved = await harness.tds(['config', 'set', 'webhook.inbox'], { input: `${harness.inbox.url}\n` });
    expect(saved.code, saved.stderr).toBe(0);
    expect((await harness.tds(['push', '@inbox', path, '--journal', 'one.journal'])).code).toBe(0);
    const fromEnv = await harness.tds(['push', path, '--journal', 'two.journal'], { env: { TDS_WEBHOOK_URL: harness.inbox.url } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect((await tablePayloads(harness.emu, harness.inbox.id)).length).toBe(4);
    const plain = await harness.tds(['push', 'http://hooks.example.com/v1/webhook/wh_very_secret_id', path]);
    expect(plain.code, plain.stderr).toBe(2);
    expect(plain.stderr).toContain('refusing plain http://');
    expect(plain.stderr).not.toContain('wh_very_secret_id');
    const none = await harness.tds(['push', path]);
    expect(none.code, none.stderr).toBe(2);
    expect(none.stderr).toContain('no webhook given');
  });

  test('refuses to push an input again while its journal exists, and resuming a finished push sends nothing', async ({
    pushHarness: harness,
  }) => {
    const path = await harness.file('p.ndjson', ndjson(people(3)));
    expect((await harness.tds(['push', harness.inbox.url, path])).code).toBe(0);
    const again = await harness.tds(['push', harness.inbox.url, path]);
    expect(again.code, again.stderr).toBe(2);
    expect(again.stderr).toContain('a journal of an earlier push of this input exists');
    // the safe path first, said as safe; sending everything again is the one to think twice about
    expect(again.stderr).toContain('hint: add --resume: it sends only what the journal does not record as sent, nothing twice');
    const resumed = await harness.tds(['push', harness.inbox.url, path, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('nothing to send');
    expect(webhookPosts(harness.emu)).toHaveLength(1);
    const otherSize = await harness.tds(['push', harness.inbox.url, path, '--resume', '--batch-size', '2']);
    expect(otherSize.code, otherSize.stderr).toBe(2);
    expect(otherSize.stderr).toContain('--batch-size was 500, now 2');
  });

  test('a run whose every request was turned away (429) sent nothing, so it does not block the next', async ({ openHarness }) => {
    const harness = await openHarness({ ...PUSH_EMULATOR, webhookFaults: '429bare@2' });
    try {
      const path = await harness.file('p.ndjson', ndjson(people(3)));
      const turnedAway = await harness.tds(['push', harness.inbox.url, path, '--max-retries', '0']);
      expect(turnedAway.code, turnedAway.stderr).not.toBe(0);
      expect(turnedAway.stderr).toMatch(/HTTP 429/);
      expect(await journalOf(path)).toBeDefined();
      const again = await harness.tds(['push', harness.inbox.url, path]);
      expect(again.code, again.stderr).toBe(0);
      expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), people(3));
    } finally {
      await harness.close();
    }
  });

  test('resumes a file that grew (the journaled batches are unchanged) and refuses one whose sent records changed', async ({
    pushHarness: harness,
  }) => {
    const path = await harness.file('p.ndjson', ndjson(people(30)));
    const args = ['push', harness.inbox.url, path, '--batch-size', '10'];
    // --validate-first records the whole file's hash in the journal, so a resume can say that it changed
    expect((await harness.tds([...args, '--validate-first'])).code).toBe(0);
    await appendFile(path, ndjson(people(5, 31)));
    const grown = await harness.tds([...args, '--resume', '--json']);
    expect(grown.code, grown.stderr).toBe(0);
    expect(grown.stderr).toContain('changed since the journal was written');
    expect(JSON.parse(grown.stdout).records).toMatchObject({ alreadySent: 30, sent: 5 });
    await writeFile(path, ndjson([{ id: 1, email: 'changed@example.com' }, ...people(34, 2)]));
    const edited = await harness.tds([...args, '--resume']);
    expect(edited.code, edited.stderr).toBe(2);
    expect(edited.stderr).toMatch(/does not match the journal .*batch 1: its records differ/);
    expect(webhookPosts(harness.emu)).toHaveLength(4);
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), people(35));
  });
});
