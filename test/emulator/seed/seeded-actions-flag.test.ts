import { describe, expect, it, vi } from 'vitest';
import { runTds } from '../../helpers/cli.js';
import { startEmulatorProcess, type EmulatorProcess } from '../../helpers/emulator-process.js';

// `tds emulator --seeded-actions live|pending`: what the seed's action cells that are not final do.

type Cells = Record<string, { status?: string | null }>;

async function api(emu: EmulatorProcess, path: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  const url = path.startsWith('http') ? path : `${emu.baseUrl}${path}`;
  const response = await fetch(url, { ...init, headers: { authorization: `Bearer ${emu.apiKey}`, ...init.headers } });
  return (await response.json()) as Record<string, unknown>;
}

async function statuses(emu: EmulatorProcess, tableId: string): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | null = null;
  do {
    const page = (await api(emu, `/tables/${tableId}/rows${cursor === null ? '' : `?cursor=${encodeURIComponent(cursor)}`}`)) as {
      rows: Array<{ id: string; cells: Cells }>;
      nextCursor: string | null;
    };
    for (const row of page.rows) for (const cell of Object.values(row.cells)) if (cell.status) found.push(`${row.id}:${cell.status}`);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return found.sort();
}

describe('tds emulator --seeded-actions', () => {
  it('pending: the seeded cells stay as seeded while a new row runs to the end', async () => {
    const emu = await startEmulatorProcess(['--no-rate-limits', '--action-delay', '50', '--seeded-actions', 'pending']);
    try {
      const { tables } = (await api(emu, '/tables')) as { tables: Array<{ id: string; name: string }> };
      const id = (name: string) => tables.find((table) => table.name === name)!.id;
      const before = await statuses(emu, id('Leads'));
      expect(before.some((entry) => /:(queued|waiting|running)$/.test(entry))).toBe(true);
      const origin = emu.baseUrl.replace(/\/v1$/, '');
      await api(emu, `${origin}/_emulator/tables/${id('Inbox')}/rows`, {
        method: 'POST',
        body: JSON.stringify({ rows: [{ cells: { Email: 'ann@initech.example' } }] }),
      });
      await vi.waitFor(
        async () => {
          const inbox = await statuses(emu, id('Inbox'));
          expect(inbox).toHaveLength(2);
          expect(inbox.some((entry) => /:(queued|waiting|running)$/.test(entry))).toBe(false);
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(await statuses(emu, id('Leads'))).toEqual(before);
    } finally {
      await emu.stop();
    }
  });

  it('takes live or pending only (exit 2)', async () => {
    const result = await runTds(['emulator', '--port', '0', '--seeded-actions', 'frozen']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--seeded-actions.*frozen.*live, pending/s);
  });
});
