import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTds } from '../helpers/cli.js';

describe('tds demo', () => {
  it('walks through every main job on the embedded emulator and exits 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tds-demo-test-'));
    const result = await runTds(['demo', '--dir', dir], { timeoutMs: 90_000 });
    expect(result.stderr).not.toMatch(/tds: /);
    expect(result.code).toBe(0);
    const out = result.stdout;
    for (const line of [
      '$ tds workspaces',
      '$ tds tables',
      '$ tds schema Leads',
      '$ tds rows Leads -o leads.csv',
      '$ head -4 leads.csv',
      '$ tds query Leads --where',
      '$ tds rows Leads --format ndjson -n 3 | jq',
      '$ tds push signups.csv --table Inbox --wait',
      '$ tds rows Inbox --no-meta --format ndjson',
      '$ tds push new-leads.csv --key email --table Inbox --skip-existing --wait settled -o enriched.csv',
      '$ csvcut -c Email,Domain,Domain.status,Company,Company.status enriched.csv',
      'tds config set api-key',
    ]) {
      expect(out).toContain(line);
    }
    expect(out).toContain('Sales');
    expect(out).toContain('Leads');
    expect(out).toContain('ada@example.com');
    // the round trip: ada was pushed before (left out), the two others sent; all three enriched, in input order
    expect(out).toMatch(/existing\s+1 already in the table/);
    const enriched = (await readFile(join(dir, 'enriched.csv'), 'utf8')).trim().split('\n');
    expect(enriched).toHaveLength(4);
    expect(enriched.slice(1).map((line) => line.match(/[\w.]+@[\w.]+/)?.[0])).toEqual([
      'ada@example.com',
      'katherine@nasa.gov',
      'margaret@mit.edu',
    ]);
    expect(enriched.join('\n')).not.toMatch(/,(queued|waiting|running),/);
    const csv = await readFile(join(dir, 'leads.csv'), 'utf8');
    expect(csv.split('\n')[0]).toMatch(/^_id,_createdAt,_updatedAt,_createdByUserId,/);
    // The key and the webhook URL stay in files, never on screen.
    const key = (await readFile(join(dir, 'api-key'), 'utf8')).trim();
    const webhook = (await readFile(join(dir, 'inbox-webhook-url'), 'utf8')).trim();
    expect(out).not.toContain(key);
    expect(out + result.stderr).not.toContain(webhook);
    expect((await stat(join(dir, 'api-key'))).mode & 0o777).toBe(0o600);
  }, 120_000);
});
