/** The items of two walks that are each sorted by `compare`, as one sorted walk. */
export function* mergeSorted<T>(first: Iterable<T>, second: Iterable<T>, compare: (a: T, b: T) => number): Iterable<T> {
  const a = first[Symbol.iterator]();
  const b = second[Symbol.iterator]();
  let nextA = a.next();
  let nextB = b.next();
  while (!nextA.done && !nextB.done) {
    if (compare(nextA.value, nextB.value) <= 0) {
      yield nextA.value;
      nextA = a.next();
    } else {
      yield nextB.value;
      nextB = b.next();
    }
  }
  for (; !nextA.done; nextA = a.next()) yield nextA.value;
  for (; !nextB.done; nextB = b.next()) yield nextB.value;
}
