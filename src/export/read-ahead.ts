/**
 * Yields what `source` yields, asking it for the next item as soon as the current one is handed
 * out (when `ahead` is true), so the next page downloads while this one is written. At most one
 * item waits. A read-ahead that fails after the consumer stopped is ignored.
 */
export async function* readAhead<T>(source: AsyncIterable<T>, ahead: boolean): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | undefined = iterator.next();
  try {
    for (;;) {
      const result: IteratorResult<T> = await (pending ?? iterator.next());
      pending = undefined;
      if (result.done) return;
      if (ahead) {
        pending = iterator.next();
        pending.catch(() => undefined);
      }
      yield result.value;
    }
  } finally {
    if (pending) void pending.then(() => iterator.return?.(), () => undefined);
    else await iterator.return?.();
  }
}
