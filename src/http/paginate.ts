import { ServiceFaultError } from '../core/index.js';
import { HashedStringSet } from '../collections/index.js';
import { CURSOR_MAX_CHARS, type Row, type RowsPage } from '../service/index.js';

/** One page request: `onBody` gets the raw body of a 2xx answer before it is parsed. */
export type PageFetcher = (cursor: string | undefined, onBody?: (body: string) => void) => Promise<RowsPage>;

export interface PaginateOptions {
  /** Start after this cursor instead of at the first page. */
  cursor?: string;
  signal?: AbortSignal;
  /**
   * Pages that may be requested beyond the one the consumer holds (0: each request waits until
   * the consumer asks). Each is requested as soon as the body before it arrives, with the cursor
   * read from the raw body, and used only if the parsed page gives the same cursor.
   */
  ahead?: number;
}

/** One page's request, and the request after it once that has started. */
class PageRequest {
  readonly page: Promise<RowsPage>;
  /** The cursor read from the raw body once it arrived, or the parsed page's. */
  peeked?: string;
  next?: PageRequest;

  constructor(
    readonly index: number,
    readonly cursor: string | undefined,
    fetchPage: PageFetcher,
    onBody?: (request: PageRequest, body: string) => void,
  ) {
    this.page = fetchPage(cursor, onBody && ((body) => onBody(this, body)));
    // A request made ahead may be dropped unread; its failure then matters to nobody.
    this.page.catch(() => undefined);
  }
}

/** Follows the cursor chain; yields each page with the cursor that fetched it (undefined for the first). */
export async function* paginate(
  fetchPage: PageFetcher,
  options: PaginateOptions = {},
): AsyncGenerator<{ page: RowsPage; cursor: string | undefined }> {
  const ahead = options.ahead ?? 0;
  // Cursors already followed, to stop a service that would send the export round in a loop.
  const used = new HashedStringSet();
  let handedOut = 0;

  let guessing = ahead > 0;
  const peek = (request: PageRequest, body: string): void => {
    if (!guessing) return;
    const peeked = peekNextCursor(body);
    // a cursor the service would refuse is never requested ahead (the parsed page then stops the chain)
    if (peeked === undefined || peeked.length > CURSOR_MAX_CHARS || peeked === request.cursor || used.has(peeked)) return;
    request.peeked = peeked;
    startAfter(request);
  };
  const start = (cursor: string | undefined, index: number): PageRequest =>
    new PageRequest(index, cursor, fetchPage, ahead > 0 ? peek : undefined);
  const startAfter = (request: PageRequest): void => {
    const allowed = request.index + 1 < handedOut + ahead;
    if (request.next || request.peeked === undefined || !allowed || options.signal?.aborted) return;
    request.next = start(request.peeked, request.index + 1);
  };

  let current = start(options.cursor, 0);
  let empty = 0;
  for (;;) {
    const page = await current.page;
    empty = page.rows.length === 0 && page.hasNextPage ? empty + 1 : 0;
    if (empty >= MAX_EMPTY_PAGES) {
      throw new ServiceFaultError(`the service sent ${MAX_EMPTY_PAGES} empty pages in a row, each with a new cursor; stopping`);
    }
    const { cursor } = current;
    let next: string | undefined;
    if (page.hasNextPage) {
      next = checkedNext(page, cursor, used);
      if (cursor !== undefined) used.add(cursor);
      current.peeked = next;
    }
    // The parsed page is the truth: a request made with another guess is dropped, and as the
    // service's pages defeat the guess, the rest are made with parsed cursors (no more waste).
    if (current.next && current.next.cursor !== next) {
      current.next = undefined;
      guessing = false;
    }
    handedOut += 1;
    for (let request: PageRequest | undefined = current; request; request = request.next) startAfter(request);
    yield { page, cursor };
    if (next === undefined) return;
    options.signal?.throwIfAborted();
    const done = current;
    current = current.next ?? start(next, current.index + 1);
    // Requests link forward: unlinked, a handed-out one that something still holds keeps only its own page.
    done.next = undefined;
  }
}

/** A page chain the service broke is given up on (exit 6), as retries exhausted are: the service is at fault, not tds. */
const FOLLOW_HINT = "the service's pages could not be followed to the end; try again later, and report it to the service if it lasts";

/** The next cursor of a page that says there are more, refusing one that would loop or that the service itself would refuse. */
function checkedNext(page: RowsPage, cursor: string | undefined, used: HashedStringSet): string {
  const next = page.nextCursor;
  if (!next) {
    throw new ServiceFaultError('the service said there are more rows (hasNextPage) but gave no nextCursor; stopping', {
      hint: FOLLOW_HINT,
    });
  }
  // A cursor seen before would loop forever over the same pages.
  if (next === cursor || used.has(next)) {
    throw new ServiceFaultError('the service returned a cursor it had already returned; stopping to avoid a loop', {
      hint: FOLLOW_HINT,
    });
  }
  if (next.length > CURSOR_MAX_CHARS) {
    throw new ServiceFaultError(
      `the service returned a cursor of ${next.length.toLocaleString('en-US')} characters (at most ${CURSOR_MAX_CHARS} are valid); stopping`,
    );
  }
  return next;
}

/**
 * Pages in a row that may say "more" while holding no row before the chain is refused: a service
 * that keeps sending empty pages with ever-new cursors would otherwise be followed for ever.
 */
export const MAX_EMPTY_PAGES = 100;

/** The rows of a page sequence, in order. */
export async function* rowsOf(pages: AsyncIterable<{ page: RowsPage }>): AsyncGenerator<Row> {
  for await (const { page } of pages) yield* page.rows;
}

const KEY = '"nextCursor"';
const CURSOR_AFTER_KEY = /^\s*:\s*"([^"\\]*)"/;

/**
 * The `nextCursor` a rows page's body most likely holds, found without parsing the body, so the
 * next request can go out while this page is parsed; undefined when there is none or it is not
 * plain text. The last `"nextCursor"` of the text is taken (docs/service-api.md shows the key after the
 * rows; a cursor has at most 500 characters). It is a guess: a cell's JSON value could hold the
 * same key, so the caller checks it against the parsed page before using what it fetched.
 */
export function peekNextCursor(body: string): string | undefined {
  const at = body.lastIndexOf(KEY);
  if (at < 0) return undefined;
  const match = CURSOR_AFTER_KEY.exec(body.slice(at + KEY.length, at + KEY.length + 600));
  // A copy: a substring can keep the whole body in memory for as long as the cursor is kept.
  return match?.[1] ? (JSON.parse(`"${match[1]}"`) as string) : undefined;
}
