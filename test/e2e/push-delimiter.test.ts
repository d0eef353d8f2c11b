import { describe, expect } from 'vitest';
import { expectSameRecords, tablePayloads } from '../push/helpers/emulator.js';
import { pushTest as test } from './push-support.js';

// A CSV's delimiter is the one its header line shows; --delimiter forces one. Text that is not UTF-8:
// UTF-16 with a byte-order mark (Excel's "Unicode text"), or --encoding.

describe('tds push: CSV delimiters', () => {
  test("a CSV of Excel in most of Europe (semicolons) is read by its header line's delimiter, said on stderr; --delimiter forces one", async ({
    pushHarness: harness,
  }) => {
    const path = await harness.file('europe.csv', '\uFEFFemail;name;city\r\na@x.io;"Müller; Anna";Köln\r\nb@x.io;Bo;\r\n');
    const result = await harness.tds(['push', harness.inbox.url, path, '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('with ";" (semicolon) as the delimiter, as its header line shows; --delimiter sets another');
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), [
      { email: 'a@x.io', name: 'Müller; Anna', city: 'Köln' },
      { email: 'b@x.io', name: 'Bo' },
    ]);
    const plain = await harness.file('plain.csv', 'email;name\na@x.io;Bo\n');
    const forced = await harness.tds(['push', plain, '--dry-run', '--json', '--delimiter', 'comma']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).not.toContain('delimiter');
    for (const [given, code] of [
      ['pipe', 0],
      ['|', 0],
      ['tab', 0],
      [':', 2],
    ] as const) {
      const run = await harness.tds(['push', plain, '--dry-run', '--delimiter', given]);
      expect(run.code, `${given}: ${run.stderr}`).toBe(code);
    }
  });

  test('a UTF-16 file with a byte-order mark (LE and BE) is decoded; latin1 and cp1252 by --encoding; else a clear error', async ({
    pushHarness: harness,
  }) => {
    const text = 'email\tname\r\na@x.io\tMüller 東京\r\nb@x.io\tZoë\r\n';
    const expected = [
      { email: 'a@x.io', name: 'Müller 東京' },
      { email: 'b@x.io', name: 'Zoë' },
    ];
    const le = await harness.file('unicode.tsv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
    const fromLe = await harness.tds(['push', harness.inbox.url, le]);
    expect(fromLe.code, fromLe.stderr).toBe(0);
    expect(fromLe.stderr).toMatch(/reading \S*unicode\.tsv as UTF-16LE, as its byte-order mark shows/);
    expectSameRecords(await tablePayloads(harness.emu, harness.inbox.id), expected);
    const be = await harness.file('big.tsv', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]));
    expect((await harness.tds(['push', harness.signups.url, be])).code).toBe(0);
    const ours = (await tablePayloads(harness.emu, harness.signups.id)).filter((row) =>
      /@x\.io$/.test(String((row as { email?: unknown }).email)),
    );
    expectSameRecords(ours, expected);

    // UTF-16 without a byte-order mark (LE and BE): its zero bytes show it
    for (const [name, bytes, encoding] of [
      ['bare-le.tsv', Buffer.from(text, 'utf16le'), 'UTF-16LE'],
      ['bare-be.tsv', Buffer.from(text, 'utf16le').swap16(), 'UTF-16BE'],
    ] as const) {
      const bare = await harness.tds(['push', await harness.file(name, bytes), '--dry-run', '--json']);
      expect(bare.code, bare.stderr).toBe(0);
      expect(bare.stderr).toContain(`as ${encoding}, as its zero bytes show (it has no byte-order mark)`);
      expect(JSON.parse(bare.stdout)).toMatchObject({ plan: { records: 2 } });
    }

    // 0xfc is ü; 0x80 is € in cp1252
    const western = await harness.file(
      'western.csv',
      Buffer.from([...Buffer.from('email;name\na@x.io;M'), 0xfc, ...Buffer.from('ller '), 0x80, 0x0a]),
    );
    const refused = await harness.tds(['push', western, '--dry-run']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not valid UTF-8 text/);
    expect(refused.stderr).toMatch(/hint: .*--encoding latin1/);
    for (const encoding of ['latin1', 'cp1252']) {
      const read = await harness.tds(['push', western, '--dry-run', '--encoding', encoding, '--json'], { input: '' });
      expect(read.code, read.stderr).toBe(0);
    }
    const sent = await harness.tds(['push', harness.inbox.url, western, '--encoding', 'cp1252', '--journal', 'w.journal']);
    expect(sent.code, sent.stderr).toBe(0);
    expect((await tablePayloads(harness.emu, harness.inbox.id)).map((row) => (row as { name?: unknown }).name)).toContain('Müller €');
  });

  test('--encoding takes a name in any case and its usual aliases (UTF-8, utf8, ucs2, ISO-8859-1, Windows-1252); an unknown one is refused', async ({
    pushHarness: harness,
  }) => {
    const utf8 = await harness.file('plain-utf8.csv', 'email,name\na@x.io,Zoë\n');
    for (const name of ['UTF-8', 'utf8', 'Utf-8']) {
      const read = await harness.tds(['push', utf8, '--dry-run', '--encoding', name, '--json'], { input: '' });
      expect(read.code, `${name}: ${read.stderr}`).toBe(0);
    }
    const utf16 = await harness.file('plain-utf16.csv', Buffer.from('email,name\na@x.io,Zoë\n', 'utf16le'));
    for (const name of ['ucs2', 'UTF16LE', 'utf-16le']) {
      const read = await harness.tds(['push', utf16, '--dry-run', '--encoding', name, '--json'], { input: '' });
      expect(read.code, `${name}: ${read.stderr}`).toBe(0);
    }
    const western = await harness.file('western-aliases.csv', Buffer.from([...Buffer.from('email,name\na@x.io,M'), 0xfc, 0x0a]));
    for (const name of ['ISO-8859-1', 'Latin1', 'Windows-1252', 'CP1252']) {
      const read = await harness.tds(['push', western, '--dry-run', '--encoding', name, '--json'], { input: '' });
      expect(read.code, `${name}: ${read.stderr}`).toBe(0);
    }
    const unknown = await harness.tds(['push', western, '--dry-run', '--encoding', 'shift_jis']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--encoding "shift_jis" is not an encoding tds reads/);
    expect(unknown.stderr).toMatch(/hint: .*latin1 \(iso-8859-1\)/);
  });
});
