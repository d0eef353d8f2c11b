import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countLines, dataDir, listLedgers, WebhookLedger, type LedgerLine } from '../../../src/push/ledger/index.js';
import type { BatchState } from '../../../src/push/journal/journal-format.js';

const line = (batch: number, state: BatchState, count = 10, extra: Partial<LedgerLine> = {}): LedgerLine => ({
  src: 'j1',
  batch,
  state,
  count,
  at: `2025-01-01T00:00:0${batch}Z`,
  ...extra,
});

describe('countLines', () => {
  it.each<[string, LedgerLine[], { submissions: number; uncertain: number }]>([
    ['a batch taken in', [line(1, 'sending'), line(1, 'accepted')], { submissions: 10, uncertain: 0 }],
    [
      'a 400 or a 413 takes nothing',
      [line(1, 'sending'), line(1, 'rejected'), line(2, 'sending'), line(2, 'split')],
      { submissions: 0, uncertain: 0 },
    ],
    [
      'a 429 then the retry taken in',
      [line(1, 'sending'), line(1, 'unsent'), line(1, 'sending'), line(1, 'accepted')],
      { submissions: 10, uncertain: 0 },
    ],
    ['a 5xx is uncertain', [line(1, 'sending'), line(1, 'uncertain')], { submissions: 0, uncertain: 10 }],
    ['killed in flight: uncertain', [line(1, 'sending')], { submissions: 0, uncertain: 10 }],
    [
      'settled by key: the records found are taken in, the rest sent again',
      [
        line(1, 'sending'),
        line(1, 'uncertain'),
        line(1, 'narrowed', 10, { kept: 4, why: 'settled' }),
        line(1, 'sending', 4, { part: 'k' }),
        line(1, 'accepted', 4, { part: 'k' }),
      ],
      { submissions: 10, uncertain: 0 },
    ],
    [
      'confirmed by the user (--accept-uncertain)',
      [line(1, 'sending'), line(1, 'uncertain'), line(1, 'accepted')],
      { submissions: 10, uncertain: 0 },
    ],
    [
      'uncertain, then sent again (--resend-uncertain): both requests count',
      [line(1, 'sending'), line(1, 'uncertain'), line(1, 'sending'), line(1, 'accepted')],
      { submissions: 10, uncertain: 10 },
    ],
    [
      'records the table held are not sent',
      [line(1, 'narrowed', 10, { kept: 6, why: 'existing' }), line(1, 'sending', 6, { part: 'k' }), line(1, 'accepted', 6, { part: 'k' })],
      { submissions: 6, uncertain: 0 },
    ],
  ])('%s', (_name, lines, expected) => {
    expect(countLines(lines)).toMatchObject(expected);
  });
});

describe('WebhookLedger', () => {
  it('adds up every run of a webhook, keeps each webhook apart, and holds no URL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tds-ledger-'));
    try {
      const hook = { fingerprint: 'a'.repeat(64), displayUrl: 'https://hook.example/…wxyz' };
      for (const source of ['j1', 'j2']) {
        const run = await WebhookLedger.at(dir, hook).run(source, 'Leads');
        await run.append({ batch: 1, first: 1, last: 5, count: 5, bytes: 9, sha256: 'x', state: 'sending', at: '2025-01-01T00:00:00Z' });
        await run.append({ batch: 1, first: 1, last: 5, count: 5, bytes: 9, sha256: 'x', state: 'accepted', at: '2025-01-01T00:00:01Z' });
        await run.close();
      }
      expect(await WebhookLedger.at(dir, hook).count()).toEqual({
        submissions: 10,
        uncertain: 0,
        firstUse: '2025-01-01T00:00:00Z',
        lastUse: '2025-01-01T00:00:00Z',
      });
      expect(await WebhookLedger.at(dir, { ...hook, fingerprint: 'b'.repeat(64) }).count()).toMatchObject({ submissions: 0 });
      expect(await listLedgers(dir)).toMatchObject([{ displayUrl: hook.displayUrl, table: 'Leads', count: { submissions: 10 } }]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('lives in TDS_DATA_DIR, else the platform data folder', () => {
    expect(dataDir({ TDS_DATA_DIR: '/d' }, 'linux', '/home/u')).toBe('/d');
    expect(dataDir({}, 'linux', '/home/u')).toBe('/home/u/.local/share/tds');
    expect(dataDir({ XDG_DATA_HOME: '/x' }, 'linux', '/home/u')).toBe('/x/tds');
    expect(dataDir({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Application Support/tds');
  });
});
