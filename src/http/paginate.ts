import { TdsError } from '../cli/errors.js';
import type { Row, RowsPage } from '../spec/index.js';

/** Follows the cursor chain; yields each page with the cursor that fetched it (undefined for the first). */
export async function* paginate(
  fetchPage: (cursor: string | undefined) => Promise<RowsPage>,
  options: { cursor?: string; signal?: AbortSignal } = {},
): AsyncGenerator<{ page: RowsPage; cursor: string | undefined }> {
  let cursor = options.cursor;
  const used = new Set<string>();
  for (;;) {
    options.signal?.throwIfAborted();
    const page = await fetchPage(cursor);
    yield { page, cursor };
    if (!page.hasNextPage) return;
    const next = page.nextCursor;
    if (!next) {
      throw new TdsError('API', 'the service said there are more rows (hasNextPage) but gave no nextCursor');
    }
    if (cursor !== undefined) used.add(cursor);
    // A cursor seen before would loop forever over the same pages.
    if (next === cursor || used.has(next)) {
      throw new TdsError('API', 'the service returned a cursor it had already returned; stopping to avoid a loop');
    }
    cursor = next;
  }
}

/** The rows of a page sequence, in order. */
export async function* rowsOf(pages: AsyncIterable<{ page: RowsPage }>): AsyncGenerator<Row> {
  for await (const { page } of pages) yield* page.rows;
}
