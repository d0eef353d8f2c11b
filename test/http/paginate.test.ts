import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_EMPTY_PAGES, paginate, peekNextCursor, rowsOf } from '../../src/http/paginate.js';
import { CURSOR_MAX_CHARS, type Row, type RowsPage } from '../../src/service/index.js';

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

  describe('a chain that would be followed for ever', () => {
    it(`gives up (SERVICE_FAULT, exit 6) at the ${MAX_EMPTY_PAGES}th empty page in a row that says there are more, requesting none after it`, async () => {
      // empty pages made up on request, each with a new cursor, for ever
      const calls: Array<string | undefined> = [];
      const fetchPage = async (cursor: string | undefined): Promise<RowsPage> => {
        calls.push(cursor);
        return page([], `c${calls.length}`);
      };
      const handed: number[] = [];
      const reading = (async () => {
        for await (const { page: p } of paginate(fetchPage)) handed.push(p.rows.length);
      })();
      await expect(reading).rejects.toMatchObject({ code: 'SERVICE_FAULT', exitCode: 6 });
      expect(calls).toHaveLength(MAX_EMPTY_PAGES);
      expect(handed).toHaveLength(MAX_EMPTY_PAGES - 1);
    });

    it('counts empty pages in a row only: a page with a row starts the count again', async () => {
      const pages = 3 * MAX_EMPTY_PAGES;
      // every MAX_EMPTY_PAGES-th page holds a row, so there are never MAX_EMPTY_PAGES empty ones in a row
      const calls: Array<string | undefined> = [];
      const fetchPage = async (cursor: string | undefined): Promise<RowsPage> => {
        calls.push(cursor);
        const n = calls.length;
        return page(n % MAX_EMPTY_PAGES === 0 ? [`r${n}`] : [], n < pages ? `c${n}` : null);
      };
      const ids = (await collect(rowsOf(paginate(fetchPage)))).map((r) => r.id);
      expect(calls).toHaveLength(pages);
      expect(ids).toEqual([`r${MAX_EMPTY_PAGES}`, `r${2 * MAX_EMPTY_PAGES}`, `r${3 * MAX_EMPTY_PAGES}`]);
    });

    it(`follows a cursor of ${CURSOR_MAX_CHARS} characters, and stops (SERVICE_FAULT, exit 6) at a longer one without sending it`, async () => {
      const longest = 'x'.repeat(CURSOR_MAX_CHARS);
      const tooLong = 'y'.repeat(CURSOR_MAX_CHARS + 1);
      const { calls, fetchPage } = pagesOf({ first: page(['a'], longest), [longest]: page(['b'], tooLong), [tooLong]: page(['c'], null) });
      await expect(collect(paginate(fetchPage))).rejects.toMatchObject({ code: 'SERVICE_FAULT', exitCode: 6 });
      expect(calls).toEqual([undefined, longest]);
    });
  });

  describe('with pages requested ahead', () => {
    /** Pages served after a tick; each body is handed to onBody before the page resolves, as the client does. */
    function server(chain: Record<string, RowsPage>, bodyOf: (page: RowsPage) => string = (p) => JSON.stringify(p)) {
      const events: string[] = [];
      const fetchPage = async (cursor: string | undefined, onBody?: (body: string) => void): Promise<RowsPage> => {
        events.push(`request ${cursor ?? 'first'}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        const served = chain[cursor ?? 'first'];
        if (!served) throw new Error(`no page for ${cursor}`);
        onBody?.(bodyOf(served));
        await new Promise((resolve) => setTimeout(resolve, 1)); // parsing
        return served;
      };
      return { events, fetchPage };
    }

    it('requests the next page as soon as the body before it arrives, before that page is handed out', async () => {
      const { events, fetchPage } = server({ first: page(['a'], 'c1'), c1: page(['b'], 'c2'), c2: page(['c'], null) });
      for await (const { page: p } of paginate(fetchPage, { ahead: 2 })) events.push(`handle ${p.rows[0]!.id}`);
      expect(events.indexOf('request c1')).toBeLessThan(events.indexOf('handle a'));
      expect(events.indexOf('request c2')).toBeLessThan(events.indexOf('handle b'));
      expect(events.filter((e) => e.startsWith('request'))).toEqual(['request first', 'request c1', 'request c2']);
    });

    it('drops a request made with a wrong guess, fetches the parsed cursor instead, and guesses no more', async () => {
      const chain: Record<string, RowsPage> = {
        first: page(['a'], 'c1'),
        c1: page(['b'], 'c2'),
        c2: page(['c'], null),
        decoy: page(['x'], null),
      };
      // Every body read early names another cursor last (as a cell's JSON value could).
      const { events, fetchPage } = server(chain, (p) => `${JSON.stringify(p).slice(0, -1)},"extra":{"nextCursor":"decoy"}}`);
      const ids = (await collect(rowsOf(paginate(fetchPage, { ahead: 2 })))).map((r) => r.id);
      expect(ids).toEqual(['a', 'b', 'c']);
      expect(events).toEqual(['request first', 'request decoy', 'request c1', 'request c2']);
    });

    it('ignores the failure of a dropped request', async () => {
      const chain = { first: page(['a'], 'c1'), c1: page(['b'], null) };
      const { fetchPage } = server(chain, (p) => `${JSON.stringify(p).slice(0, -1)},"x":{"nextCursor":"missing"}}`);
      expect((await collect(rowsOf(paginate(fetchPage, { ahead: 2 })))).map((r) => r.id)).toEqual(['a', 'b']);
    });

    it('never requests more than `ahead` pages beyond the one the consumer holds', async () => {
      const chain: Record<string, RowsPage> = {};
      for (let i = 0; i < 8; i += 1) chain[i === 0 ? 'first' : `c${i}`] = page([`r${i}`], i < 7 ? `c${i + 1}` : null);
      const { events, fetchPage } = server(chain);
      for await (const { page: p } of paginate(fetchPage, { ahead: 2 })) {
        await new Promise((resolve) => setTimeout(resolve, 15)); // a slow consumer
        const held = Number(p.rows[0]!.id.slice(1));
        const requested = events.filter((e) => e.startsWith('request')).length;
        expect(requested - 1 - held).toBeLessThanOrEqual(2);
      }
      expect(events).toHaveLength(8);
    });

    it('requests nothing more once the signal is aborted', async () => {
      const controller = new AbortController();
      const { events, fetchPage } = server({
        first: page(['a'], 'c1'),
        c1: page(['b'], 'c2'),
        c2: page(['c'], 'c3'),
        c3: page(['d'], null),
      });
      const iterator = paginate(fetchPage, { ahead: 2, signal: controller.signal });
      await iterator.next();
      controller.abort(new Error('stop'));
      const requested = events.length;
      await new Promise((resolve) => setTimeout(resolve, 20));
      await expect(iterator.next()).rejects.toThrow('stop');
      expect(events).toHaveLength(requested);
    });
  });
});

const cellRow = { id: 'r1', tableId: 't', createdAt: '', updatedAt: '', createdByUserId: null, cells: { f: { value: 'x' } } };

describe('peekNextCursor', () => {
  it('reads the cursor of a page body without parsing it', () => {
    const body = JSON.stringify({ rows: [cellRow], limit: 100, nextCursor: 'eyJzIjoi.abc-_9', hasNextPage: true });
    expect(peekNextCursor(body)).toBe('eyJzIjoi.abc-_9');
  });

  it('allows white space around the colon', () => {
    expect(peekNextCursor('{"rows": [], "nextCursor" :\n "c2", "hasNextPage": true}')).toBe('c2');
  });

  it('gives undefined for the last page, a missing key, an empty or an escaped cursor', () => {
    expect(peekNextCursor(JSON.stringify({ rows: [], limit: 1, nextCursor: null, hasNextPage: false }))).toBeUndefined();
    expect(peekNextCursor('{"rows":[]}')).toBeUndefined();
    expect(peekNextCursor('{"nextCursor":""}')).toBeUndefined();
    expect(peekNextCursor('{"nextCursor":"a\\"b"}')).toBeUndefined();
  });

  it('takes the last occurrence, which follows the rows in a page', () => {
    const inCell = { ...cellRow, cells: { f: { value: { nextCursor: 'from-a-cell' } } } };
    expect(peekNextCursor(JSON.stringify({ rows: [inCell], limit: 1, nextCursor: 'real', hasNextPage: true }))).toBe('real');
  });

  it('finds any plain cursor of a serialized page', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[\w.~-]{1,500}$/), fc.array(fc.jsonValue(), { maxLength: 3 }), (cursor, values) => {
        const rows = values.map((value, i) => ({ ...cellRow, id: `r${i}`, cells: { f: { value } } }));
        expect(peekNextCursor(JSON.stringify({ rows, limit: 100, nextCursor: cursor, hasNextPage: true }))).toBe(cursor);
      }),
    );
  });
});
