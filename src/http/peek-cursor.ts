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
