import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAtomicFile, claimOutput, type DataFormat, type ExportFormat } from '../../output/index.js';
import { createRecordWriter } from '../../output/page-encoder.js';
import { writeParquetFile } from '../../parquet/index.js';
import {
  planRecord,
  statusFieldIds,
  createRowShaper,
  type HeaderMode,
  TruncationTally,
  typedPlan,
  typedRowReader,
  type TypedValue,
} from '../../records/index.js';
import type { Field, Row } from '../../service/index.js';

/** `-o FILE` of `--wait settled`. */
export interface RowsOutput {
  path: string;
  format: Exclude<ExportFormat, 'table'>;
  header: HeaderMode;
}

export interface WrittenRows {
  path: string;
  format: RowsOutput['format'];
  rows: number;
  /** keys of records whose rows never showed (not written) */
  missing: number;
  /** cells the service cut at 200 characters, per record key */
  cut: TruncationTally;
}

/**
 * The pushed rows, one per key in input order, in the export's record shape with the status columns
 * (`<key>.status`, `<key>.error` after each column that runs an action), written atomically.
 */
export async function writePushedRows(
  output: RowsOutput,
  fields: readonly Field[],
  keys: readonly string[],
  store: KeyedRowsFile,
): Promise<WrittenRows> {
  const shape = { header: output.header, meta: true, system: true, cells: 'value' as const, statusColumns: true };
  const plan = planRecord(fields, shape, statusFieldIds(fields));
  const toRecord = createRowShaper(plan, 'value');
  const lock = await claimOutput(output.path, 'another run');
  const cut = new TruncationTally();
  let rows = 0;
  try {
    if (output.format === 'parquet') {
      rows = (await writeParquetRows(output.path, output.header, fields, storedRows(keys, store))).rows;
      return { path: output.path, format: output.format, rows, missing: keys.length - rows, cut };
    }
    const format: DataFormat = output.format;
    const file = await createAtomicFile(output.path, { fresh: true });
    try {
      const writer = createRecordWriter(file.stream, { format, columns: plan.keys });
      for await (const row of storedRows(keys, store)) {
        await writer.write(toRecord(row, cut));
        rows += 1;
      }
      await writer.end();
      await file.commit();
    } catch (error) {
      await file.discard();
      throw error;
    }
  } finally {
    await lock.release();
  }
  return { path: output.path, format: output.format, rows, missing: keys.length - rows, cut };
}

/** The stored rows of `keys`, in their order (keys whose rows never showed left out). */
async function* storedRows(keys: readonly string[], store: KeyedRowsFile): AsyncGenerator<Row> {
  for (const key of keys) {
    const row = await store.get(key);
    if (row) yield row;
  }
}

/** Rows typed before they are handed on together (a few data chunks). */
const BATCH_ROWS = 8192;

/**
 * The pushed rows as Parquet, with the typed columns of the mirror and of `tds rows --format parquet`
 * (the action columns' status and error included), written as an export writes one (writeParquetFile).
 */
export async function writeParquetRows(
  path: string,
  header: HeaderMode,
  fields: readonly Field[],
  rows: AsyncIterable<Row>,
): Promise<{ rows: number; unfit: number }> {
  const columns = typedPlan(fields, { header });
  const read = typedRowReader(columns);
  let count = 0;
  let unfit = 0;
  async function* batches(): AsyncGenerator<TypedValue[][]> {
    let batch: TypedValue[][] = [];
    for await (const row of rows) {
      batch.push(read(row, () => (unfit += 1)));
      count += 1;
      if (batch.length >= BATCH_ROWS) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
  await writeParquetFile(path, columns, batches());
  return { rows: count, unfit };
}

/**
 * Rows kept by key in a temporary file (memory holds only where each one is), so waiting for a
 * million pushed rows stays flat. A key stored again points to its newer row.
 */
export class KeyedRowsFile {
  private readonly where = new Map<string, { offset: number; length: number }>();
  private size = 0;

  private constructor(
    private readonly dir: string,
    private readonly file: FileHandle,
  ) {}

  static async create(): Promise<KeyedRowsFile> {
    const dir = await mkdtemp(join(tmpdir(), 'tds-rows-'));
    try {
      return new KeyedRowsFile(dir, await open(join(dir, 'rows.ndjson'), 'w+', 0o600));
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  get count(): number {
    return this.where.size;
  }

  has(key: string): boolean {
    return this.where.has(key);
  }

  async put(key: string, row: Row): Promise<void> {
    const text = Buffer.from(`${JSON.stringify(row)}\n`);
    await this.file.write(text, 0, text.length, this.size);
    this.where.set(key, { offset: this.size, length: text.length });
    this.size += text.length;
  }

  async get(key: string): Promise<Row | undefined> {
    const at = this.where.get(key);
    if (!at) return undefined;
    const buffer = Buffer.alloc(at.length);
    await this.file.read(buffer, 0, at.length, at.offset);
    return JSON.parse(buffer.toString('utf8')) as Row;
  }

  async close(): Promise<void> {
    await this.file.close().catch(() => undefined);
    await rm(this.dir, { recursive: true, force: true });
  }
}
