import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdPrivateUmask, userFileMode } from '../../src/core/private-files.js';

// The private umask held while DuckDB may create files of ours (issue 20, item 10).

let before: number;
beforeEach(() => {
  before = process.umask(0o022);
});
afterEach(() => {
  process.umask(before);
});

const umask = (): number => {
  const mask = process.umask(0o077);
  process.umask(mask);
  return mask;
};

describe('holdPrivateUmask', () => {
  it('makes the umask private while held, nested holds included, and gives the user’s back after the last', () => {
    const first = holdPrivateUmask();
    expect(umask()).toBe(0o077);
    const second = holdPrivateUmask();
    first();
    first(); // a second release of the same hold changes nothing
    expect(umask()).toBe(0o077);
    second();
    expect(umask()).toBe(0o022);
  });

  it('keeps a user umask stricter than private', () => {
    process.umask(0o277);
    const release = holdPrivateUmask();
    expect(umask()).toBe(0o277);
    release();
    expect(umask()).toBe(0o277);
  });
});

describe('userFileMode', () => {
  it.each([
    [0o022, 0o644],
    [0o027, 0o640],
    [0o002, 0o664],
  ])('umask %o gives files %o, held or not', (mask, mode) => {
    process.umask(mask);
    expect(userFileMode()).toBe(mode);
    const release = holdPrivateUmask();
    expect(userFileMode()).toBe(mode);
    release();
    expect(umask()).toBe(mask);
  });
});
