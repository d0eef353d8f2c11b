import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { OutputWriteError } from '../../src/output/write-error.js';
import { asWriteFailure } from '../../src/parquet/copy-out.js';

// DuckDB says what the system refused only in its message (strerror): those become write errors naming
// the file (exit 1); anything else stays as it is.

describe('asWriteFailure', () => {
  it.each([
    ['IO Error: Could not write file "x.partial": No space left on device', 'no space left on device (ENOSPC)'],
    ['IO Error: Could not write file "x.partial": File too large', 'file too large (EFBIG)'],
    ['IO Error: Could not write file "x.partial": Disk quota exceeded', 'disk quota exceeded (EDQUOT)'],
    ['IO Error: Cannot open file "x.partial": Read-only file system', 'read-only file system (EROFS)'],
  ])('%s → cannot write to FILE: %s', (message, reason) => {
    const error = asWriteFailure('/out/x.parquet.partial', new Error(message));
    expect(error).toBeInstanceOf(OutputWriteError);
    expect(error).toMatchObject({ exitCode: 1, message: `cannot write to /out/x.parquet.partial: ${reason}` });
  });

  it("passes tds's own errors and DuckDB's other errors as they are", () => {
    const usage = new UsageError('SQL: IO Error: Cannot open file "x": Permission denied');
    const conversion = new Error("Conversion Error: Could not convert string 'x' to INT32");
    expect(asWriteFailure('x', usage)).toBe(usage);
    expect(asWriteFailure('x', conversion)).toBe(conversion);
  });
});
