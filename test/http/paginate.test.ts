import { describe, expect, it } from 'vitest';
import { paginate, rowsOf } from '../../src/http/paginate.js';
import type { Row, RowsPage } from '../../src/spec/index.js';

const row = (id: string): Row => ({ id, tableId: 't', createdAt: '', updatedAt: '', createdByUserId: null, cells: {} });

function pagesOf(chain: Record<string, RowsPage>) {
  const calls: Array<string | undefined> = [];
  const fetchPage = async (cursor: string | undefined): Promise<RowsPage> => {
    calls.push(cursor);
    const page = chain[cursor ?? 'first'];
    if (!page) throw new Error(`no page for ${cursor}`);
    return page;
  };
  return { calls, fetchPage };
}

const page = (ids: string[], nextCursor: string | null, hasNextPage = nextCursor !== null): RowsPage => ({
  rows: ids.map(row),
  limit: 2,
  nextCursor,
  hasNextPage,
});

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe('paginate', () => {
  it('follows nextCursor until hasNextPage is false, yielding the cursor that fetched each page', async () => {
    const { calls, fetchPage } = pagesOf({ first: page(['a', 'b'], 'c1'), c1: page(['c', 'd'], 'c2'), c2: page(['e'], null) });
    const pages = await collect(paginate(fetchPage));
    expect(pages.map((p) => p.cursor)).toEqual([undefined, 'c1', 'c2']);
    expect(calls).toEqual([undefined, 'c1', 'c2']);
  });

  it('starts from a given cursor', async () => {
    const { calls, fetchPage } = pagesOf({ c1: page(['c'], 'c2'), c2: page(['e'], null) });
    expect((await collect(rowsOf(paginate(fetchPage, { cursor: 'c1' })))).map((r) => r.id)).toEqual(['c', 'e']);
    expect(calls).toEqual(['c1', 'c2']);
  });

  it('stops on hasNextPage false even when a cursor is present', async () => {
    const { calls, fetchPage } = pagesOf({ first: page(['a'], 'c1', false) });
    await collect(paginate(fetchPage));
    expect(calls).toEqual([undefined]);
  });

  it('handles an empty table', async () => {
    const { fetchPage } = pagesOf({ first: page([], null) });
    expect(await collect(rowsOf(paginate(fetchPage)))).toEqual([]);
  });

  it('fails clearly when more pages are announced without a cursor', async () => {
    const { fetchPage } = pagesOf({ first: page(['a'], null, true) });
    await expect(collect(paginate(fetchPage))).rejects.toThrow(/gave no nextCursor/);
  });

  it('fails instead of looping on a repeated cursor', async () => {
    const { fetchPage } = pagesOf({ first: page(['a'], 'c1'), c1: page(['b'], 'c2'), c2: page(['c'], 'c1') });
    await expect(collect(paginate(fetchPage))).rejects.toThrow(/already returned/);
  });

  it('stops before the next page when the signal is aborted', async () => {
    const controller = new AbortController();
    const { calls, fetchPage } = pagesOf({ first: page(['a'], 'c1'), c1: page(['b'], null) });
    const iterator = paginate(fetchPage, { signal: controller.signal });
    await iterator.next();
    controller.abort(new Error('stop'));
    await expect(iterator.next()).rejects.toThrow('stop');
    expect(calls).toEqual([undefined]);
  });
});
