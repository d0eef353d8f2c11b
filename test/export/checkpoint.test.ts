import { existsSync } from 'node:fs';
import { readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, vi } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import {
  canonical,
  checkpointPath,
  CheckpointWriter,
  fingerprintDifferences,
  readCheckpoint,
  type CheckpointState,
  type ExportFingerprint,
} from '../../src/export/checkpoint.js';
import { fileOutput } from '../../src/export/output.js';
import { test as it } from '../helpers/emulator-fixture.js';
import { useTestFolder } from '../helpers/test-folder.js';

const fingerprint: ExportFingerprint = {
  tableId: 'tbl_1',
  endpoint: 'query',
  search: '',
  filters: { combinator: 'and', rules: [{ fieldId: 'f1', operator: '=', value: 1 }] },
  shape: { header: 'label', meta: true, system: true, cells: 'value', statusColumns: false },
  columns: ['f1=A'],
  format: 'csv',
  csv: { bom: false, crlf: false, join: null, safeFormulas: false, maxCellChars: null },
};

function state(rows: number): CheckpointState {
  return {
    fingerprint,
    statusFields: [],
    cursor: `c${rows}`,
    done: false,
    rows,
    bytes: rows * 10,
    lastPageIds: [`r${rows}`],
    duplicates: 0,
    truncated: { service: {}, spreadsheet: {} },
  };
}

const folder = useTestFolder();
const tempDir = (): Promise<string> => folder.make('checkpoint');

describe('CheckpointWriter', () => {
  it('writes the latest state in the background, coalescing pages, and syncs the data on flush', async () => {
    const path = checkpointPath(join(await tempDir(), 'out.csv'));
    let syncs = 0;
    const writer = new CheckpointWriter(path, async () => void (syncs += 1), { syncEveryMs: 60_000, minGapMs: 0 });
    for (let rows = 1; rows <= 50; rows += 1) writer.update(state(rows));
    await writer.flush();
    expect(await readCheckpoint(path)).toMatchObject({ version: 1, rows: 50, cursor: 'c50', fingerprint });
    expect(syncs).toBe(1);
    await writer.remove();
    expect(await readCheckpoint(path)).toBeUndefined();
  });

  it('waits at least minGapMs between writes', async () => {
    const path = checkpointPath(join(await tempDir(), 'out.csv'));
    const writer = new CheckpointWriter(path, async () => undefined, { syncEveryMs: 60_000, minGapMs: 200 });
    const before = Date.now();
    const rowsWritten = async (): Promise<number | undefined> => (await readCheckpoint(path))?.rows;
    writer.update(state(1));
    await vi.waitFor(async () => expect(await rowsWritten()).toBe(1), { timeout: 10_000, interval: 5 });
    writer.update(state(2));
    // the second write waits for its turn: it shows no sooner than minGapMs after the first began
    await vi.waitFor(async () => expect(await rowsWritten()).toBe(2), { timeout: 10_000, interval: 5 });
    expect(Date.now() - before).toBeGreaterThanOrEqual(200);
    await writer.flush();
    expect((await readCheckpoint(path))?.rows).toBe(2);
  });

  it('reports a checkpoint it cannot read as a usage error pointing at --restart', async () => {
    const path = join(await tempDir(), 'x.tds-checkpoint');
    await writeFile(path, '{"version": 99}');
    await expect(readCheckpoint(path)).rejects.toThrow(UsageError);
    await writeFile(path, 'not json');
    await expect(readCheckpoint(path)).rejects.toMatchObject({ hint: expect.stringMatching(/--restart/) });
  });
});

describe('fingerprintDifferences', () => {
  it('names what differs; key order does not matter', () => {
    const reordered = JSON.parse(canonical(fingerprint)) as ExportFingerprint;
    expect(fingerprintDifferences(fingerprint, reordered)).toEqual([]);
    const other = { ...fingerprint, format: 'ndjson' as const, filters: null, shape: { ...fingerprint.shape, header: 'id' as const } };
    expect(fingerprintDifferences(fingerprint, other)).toEqual([
      'the filters (--where/--filter)',
      'the record options (--header, --columns, --no-meta, --no-system, --cells, --status-columns)',
      'the output format',
    ]);
  });
});

describe('fileOutput', () => {
  it('writes FILE.partial and renames it on commit', async () => {
    const path = join(await tempDir(), 'out.csv');
    const output = await fileOutput(path);
    await output.write(Buffer.from('a,b\n'));
    await expect(stat(path)).rejects.toThrow();
    await output.commit();
    expect(await readFile(path, 'utf8')).toBe('a,b\n');
  });

  it('on resume cuts the partial file back to the checkpointed bytes and appends', async () => {
    const path = join(await tempDir(), 'out.csv');
    const first = await fileOutput(path);
    await first.write(Buffer.from('head\nrow1\nhalf-written'));
    await first.keep();
    const resumed = await fileOutput(path, 'head\nrow1\n'.length);
    await resumed.write(Buffer.from('row2\n'));
    await resumed.commit();
    expect(await readFile(path, 'utf8')).toBe('head\nrow1\nrow2\n');
  });

  it('says which file it cannot write, as a usage error', async () => {
    await expect(fileOutput(join(await tempDir(), 'missing', 'out.csv'))).rejects.toThrow(
      /cannot write .*missing\/out\.csv\.partial \(ENOENT\)/,
    );
  });

  it('refuses to resume when the partial file is missing or shorter than the checkpoint says', async () => {
    const path = join(await tempDir(), 'out.csv');
    await expect(fileOutput(path, 10)).rejects.toThrow(/it is missing/);
    await writeFile(`${path}.partial`, 'abc');
    await expect(fileOutput(path, 10)).rejects.toThrow(/counts 10 bytes .* but it has 3 bytes/);
  });

  it.runIf(existsSync('/dev/full'))('rejects a write the disk refuses, and every write after it', async () => {
    const path = join(await tempDir(), 'out.csv');
    await symlink('/dev/full', `${path}.partial`); // every write fails with ENOSPC
    const output = await fileOutput(path);
    await expect(output.write(Buffer.from('a,b\n'))).rejects.toThrow(/ENOSPC/);
    await expect(output.write(Buffer.from('c,d\n'))).rejects.toThrow();
  });
});
