import { describe, expect } from 'vitest';
import { expectSameRecords, tablePayloads } from '../push/helpers/emulator.js';
import { pushTest as test } from './push-support.js';

// A CSV's delimiter is the one its header line shows; --delimiter forces one.

describe('tds push: CSV delimiters', () => {
  test("a CSV of Excel in most of Europe (semicolons) is read by its header line's delimiter, said on stderr; --delimiter forces one", async ({
    bench,
  }) => {
    const path = await bench.file('europe.csv', '\uFEFFemail;name;city\r\na@x.io;"Müller; Anna";Köln\r\nb@x.io;Bo;\r\n');
    const result = await bench.tds(['push', bench.inbox.url, path, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('with ";" (semicolon) as the delimiter, as its header line shows; --delimiter sets another');
    expectSameRecords(await tablePayloads(bench.emu, bench.inbox.id), [
      { email: 'a@x.io', name: 'Müller; Anna', city: 'Köln' },
      { email: 'b@x.io', name: 'Bo' },
    ]);
    const plain = await bench.file('plain.csv', 'email;name\na@x.io;Bo\n');
    const forced = await bench.tds(['push', plain, '--dry-run', '--json', '--delimiter', 'comma']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).not.toContain('delimiter');
    for (const [given, code] of [
      ['pipe', 0],
      ['|', 0],
      ['tab', 0],
      [':', 2],
    ] as const) {
      const run = await bench.tds(['push', plain, '--dry-run', '--delimiter', given]);
      expect(run.code, `${given}: ${run.stderr}`).toBe(code);
    }
  });
});
