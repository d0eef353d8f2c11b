import { createRequire } from 'node:module';
import type { DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';
import { canonicalInstantMillis, type SqlType, type TypedValue } from '../records/index.js';
import { loadDuckDB, type Database } from './engine.js';

// Rows of typed values (records/typed-plan.ts) appended straight into a table of their types, a data
// chunk at a time, each column written into DuckDB's vector by the engine's own bindings: numbers,
// booleans and instants as one copy of a column's bytes, text one call a value. No text per row to be
// parsed, no inbox to be copied from: measured, the JSON text of a row appended to an inbox and typed by
// an INSERT … SELECT cost half as much again (Parquet exports and the mirror's first sync take this way).
//
// A value is what DuckDB's cast of its text gives: an instant in the service's own form
// (YYYY-MM-DDTHH:MM:SS.mmmZ) is counted here, any other text is cast by DuckDB itself; JSON is its text
// (the column's type is JSON); -0 is 0 (as the text "0" was).

/** The type of a column appended to: a typed value's, or BIGINT (a row's number). */
export type AppendType = SqlType | 'BIGINT';

type Bindings = typeof import('@duckdb/node-bindings');
type Vector = ReturnType<Bindings['data_chunk_get_vector']>;

let bindings: Promise<Bindings> | undefined;

function loadBindings(): Promise<Bindings> {
  // @duckdb/node-api's own native bindings (CommonJS, required as engine.ts requires @duckdb/node-api)
  return (bindings ??= Promise.resolve().then(() => createRequire(import.meta.url)('@duckdb/node-bindings') as Bindings));
}

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2048;
const TWO_32 = 4294967296;

/** Rows appended to one table through one appender, kept open across calls (see openRowAppender). */
export interface RowAppender {
  /** Rows of typed values (BIGINT: a safe integer), in the column order given at opening. */
  append(rows: readonly (readonly TypedValue[])[]): Promise<void>;
  /** Hands the rows appended so far to the table (committed, unless the connection has a transaction open). */
  flush(): void;
  /** Flushes and closes. */
  close(): void;
  /** Closes, dropping the rows not flushed. */
  discard(): void;
}

/**
 * An appender to `table` (on `connection`, the database's own by default), whose columns have `types`,
 * and one data chunk reused for every chunk until close(): many small batches (a page of rows each)
 * leave no native memory behind for the garbage collector. `lastColumn`: the table's last column is a
 * BIGINT with this value in every row (not in the rows given; `types` ends with it).
 */
export async function openRowAppender(
  db: Pick<Database, 'connection'>,
  table: { name: string; schema?: string; catalog?: string },
  types: readonly AppendType[],
  lastColumn?: number,
): Promise<RowAppender> {
  const [duckdb, native] = await Promise.all([loadDuckDB(), loadBindings()]);
  const appender = await db.connection.createAppender(table.name, table.schema ?? 'main', table.catalog ?? null);
  const chunk = duckdb.DuckDBDataChunk.create(
    types.map((type) =>
      type === 'DOUBLE'
        ? duckdb.DOUBLE
        : type === 'BOOLEAN'
          ? duckdb.BOOLEAN
          : type === 'TIMESTAMPTZ'
            ? duckdb.TIMESTAMPTZ
            : type === 'BIGINT'
              ? duckdb.BIGINT
              : type === 'VARCHAR[]'
                ? duckdb.LIST(duckdb.VARCHAR)
                : duckdb.VARCHAR,
    ),
  );
  const writer = new ChunkWriter(native, db.connection, chunk, types, lastColumn);
  // the chunk is filled across calls (a page of rows each) and appended when full or flushed: a chunk a
  // page would have DuckDB allocate and free its memory twenty times as often
  const appendFilled = (): void => {
    if (writer.filled === 0) return;
    appender.appendDataChunk(chunk);
    writer.reset();
  };
  return {
    async append(rows) {
      for (let start = 0; start < rows.length;) {
        const take = Math.min(CHUNK_ROWS - writer.filled, rows.length - start);
        await writer.fill(take === rows.length ? rows : rows.slice(start, start + take));
        start += take;
        if (writer.filled === CHUNK_ROWS) appendFilled();
      }
    },
    flush() {
      appendFilled();
      appender.flushSync();
    },
    close() {
      appendFilled();
      appender.closeSync();
    },
    discard() {
      writer.reset();
      appender.clear();
      appender.closeSync();
    },
  };
}

/** The length of `YYYY-MM-DDTHH:MM:`, the part of an instant in the service's own form that its minute shares. */
const MINUTE_PREFIX = 17;
const DIGIT_0 = 48;
const [DOT, Z] = [46, 90];

/**
 * The milliseconds within its minute of an instant in the service's own form (`…:SS.mmmZ` after MINUTE_PREFIX, seconds
 * 00-59, as canonicalInstantMillis takes them), else undefined.
 */
function secondsOfMinute(text: string): number | undefined {
  if (text.length !== 24 || text.charCodeAt(19) !== DOT || text.charCodeAt(23) !== Z) return undefined;
  const secondTens = text.charCodeAt(17) - DIGIT_0;
  const seconds = text.charCodeAt(18) - DIGIT_0;
  const milliHundreds = text.charCodeAt(20) - DIGIT_0;
  const milliTens = text.charCodeAt(21) - DIGIT_0;
  const millis = text.charCodeAt(22) - DIGIT_0;
  if (!(secondTens >= 0 && secondTens <= 5 && isDigit(seconds) && isDigit(milliHundreds) && isDigit(milliTens) && isDigit(millis))) {
    return undefined;
  }
  return (secondTens * 10 + seconds) * 1000 + milliHundreds * 100 + milliTens * 10 + millis;
}

const isDigit = (value: number): boolean => value >= 0 && value <= 9;

/** Writes rows of typed values into a data chunk's vectors, column by column, after the rows it holds. */
class ChunkWriter {
  /** Rows the chunk holds. */
  filled = 0;
  /** A column's fixed-width values (8 bytes each), then copied into its vector. */
  private readonly words = new ArrayBuffer(CHUNK_ROWS * 8);
  private readonly float64 = new Float64Array(this.words);
  private readonly int32 = new Int32Array(this.words);
  private readonly bigint64 = new BigInt64Array(this.words);
  private readonly bytes = new Uint8Array(this.words);
  /** A list column's entries (offset and length, 8 bytes each). */
  private readonly entries = new Uint32Array(CHUNK_ROWS * 4);
  /** Each column's validity mask (a bit a row, 1 = not null), and whether it has a null yet. */
  private readonly masks: Uint32Array[];
  private readonly nulls: boolean[];
  /** The column being written, and the row of the chunk its values start at. */
  private validity: Uint32Array;
  private start = 0;

  constructor(
    private readonly native: Bindings,
    private readonly connection: DuckDBConnection,
    private readonly chunk: DuckDBDataChunk,
    private readonly types: readonly AppendType[],
    /** The value of the last column in every row, when the rows do not hold it. */
    private readonly lastColumn?: number,
  ) {
    this.masks = types.map(() => new Uint32Array(CHUNK_ROWS / 32).fill(0xffffffff));
    this.nulls = types.map(() => false);
    this.validity = this.masks[0] ?? new Uint32Array(0);
  }

  /** Empties the chunk. */
  reset(): void {
    this.native.data_chunk_reset(this.chunk.chunk);
    this.filled = 0;
    for (const [column, mask] of this.masks.entries()) {
      if (this.nulls[column]) mask.fill(0xffffffff);
      this.nulls[column] = false;
    }
  }

  /** Rows after those the chunk holds (at most as many as it has room for). */
  async fill(rows: readonly (readonly TypedValue[])[]): Promise<void> {
    const { native, types } = this;
    const raw = this.chunk.chunk;
    this.start = this.filled;
    const size = this.filled + rows.length;
    native.data_chunk_set_size(raw, size);
    for (let column = 0; column < types.length; column += 1) {
      const vector = native.data_chunk_get_vector(raw, column);
      this.validity = this.masks[column]!;
      let nulls: boolean;
      if (this.lastColumn !== undefined && column === types.length - 1) {
        this.constant(vector, rows.length, this.lastColumn);
        continue;
      }
      switch (types[column]) {
        case 'DOUBLE':
          nulls = this.doubles(vector, rows, column);
          break;
        case 'BOOLEAN':
          nulls = this.booleans(vector, rows, column);
          break;
        case 'BIGINT':
          nulls = this.integers(vector, rows, column);
          break;
        case 'TIMESTAMPTZ':
          nulls = await this.instants(vector, rows, column);
          break;
        case 'VARCHAR[]':
          nulls = this.lists(vector, rows, column);
          break;
        default:
          nulls = this.texts(vector, rows, column);
      }
      if (nulls) this.nulls[column] = true;
      if (this.nulls[column]) {
        native.vector_ensure_validity_writable(vector);
        native.copy_data_to_vector_validity(vector, 0, this.validity.buffer as ArrayBuffer, 0, Math.ceil(size / 64) * 8);
      }
    }
    this.filled = size;
  }

  /** Row `row` of the rows being written is null. */
  private setNull(row: number): void {
    const at = this.start + row;
    this.validity[at >>> 5]! &= ~(1 << (at & 31));
  }

  private texts(vector: Vector, rows: readonly (readonly TypedValue[])[], column: number): boolean {
    let nulls = false;
    for (let row = 0; row < rows.length; row += 1) {
      const value = rows[row]![column];
      if (value === null || value === undefined) {
        this.setNull(row);
        nulls = true;
      } else this.native.vector_assign_string_element(vector, this.start + row, value as string);
    }
    return nulls;
  }

  private doubles(vector: Vector, rows: readonly (readonly TypedValue[])[], column: number): boolean {
    let nulls = false;
    for (let row = 0; row < rows.length; row += 1) {
      const value = rows[row]![column];
      if (value === null || value === undefined) {
        this.setNull(row);
        nulls = true;
      } else this.float64[row] = (value as number) === 0 ? 0 : (value as number);
    }
    this.native.copy_data_to_vector(vector, this.start * 8, this.words, 0, rows.length * 8);
    return nulls;
  }

  private booleans(vector: Vector, rows: readonly (readonly TypedValue[])[], column: number): boolean {
    let nulls = false;
    for (let row = 0; row < rows.length; row += 1) {
      const value = rows[row]![column];
      if (value === null || value === undefined) {
        this.setNull(row);
        nulls = true;
      } else this.bytes[row] = value === true ? 1 : 0;
    }
    this.native.copy_data_to_vector(vector, this.start, this.words, 0, rows.length);
    return nulls;
  }

  private integers(vector: Vector, rows: readonly (readonly TypedValue[])[], column: number): boolean {
    let nulls = false;
    for (let row = 0; row < rows.length; row += 1) {
      const value = rows[row]![column];
      if (value === null || value === undefined) {
        this.setNull(row);
        nulls = true;
      } else this.setInt64(row, value as number, 1);
    }
    this.native.copy_data_to_vector(vector, this.start * 8, this.words, 0, rows.length * 8);
    return nulls;
  }

  /** The same integer in every row (never null). */
  private constant(vector: Vector, count: number, value: number): void {
    for (let row = 0; row < count; row += 1) this.setInt64(row, value, 1);
    this.native.copy_data_to_vector(vector, this.start * 8, this.words, 0, count * 8);
  }

  /** `value` × `scale` (a safe integer times 1 or 1000) as the int64 at `row`, exactly. */
  private setInt64(row: number, value: number, scale: number): void {
    const high = Math.floor(value / TWO_32);
    const low = (value - high * TWO_32) * scale; // < 2^42: exact
    const carry = Math.floor(low / TWO_32);
    this.int32[2 * row] = (low - carry * TWO_32) | 0;
    this.int32[2 * row + 1] = high * scale + carry;
  }

  /**
   * Microseconds since the epoch: the service's own form counted here, any other text cast by DuckDB (as it would be in SQL).
   * A page's rows are close in time (newest first): an instant in the minute of the one before it is counted from that
   * minute's start and its own seconds, the date and time before them read once a minute (the count of every instant
   * was the most CPU the appender took).
   */
  private async instants(vector: Vector, rows: readonly (readonly TypedValue[])[], column: number): Promise<boolean> {
    let nulls = false;
    let others: number[] | undefined;
    /** `YYYY-MM-DDTHH:MM:` of the last instant counted whole, and that minute's start. */
    let minute = '';
    let minuteStart = 0;
    for (let row = 0; row < rows.length; row += 1) {
      const value = rows[row]![column];
      if (value === null || value === undefined) {
        this.setNull(row);
        nulls = true;
        continue;
      }
      const text = value as string;
      let millis = minute !== '' && text.startsWith(minute) ? secondsOfMinute(text) : undefined;
      if (millis !== undefined) millis += minuteStart;
      else {
        millis = canonicalInstantMillis(text);
        if (millis !== undefined) {
          minute = text.slice(0, MINUTE_PREFIX);
          minuteStart = millis - secondsOfMinute(text)!;
        }
      }
      if (millis !== undefined) this.setInt64(row, millis, 1000);
      else (others ??= []).push(row);
    }
    if (others) await this.castInstants(others, rows, column);
    this.native.copy_data_to_vector(vector, this.start * 8, this.words, 0, rows.length * 8);
    return nulls;
  }

  private async castInstants(which: number[], rows: readonly (readonly TypedValue[])[], column: number): Promise<void> {
    const duckdb = await loadDuckDB();
    const texts = duckdb.listValue(which.map((row) => rows[row]![column] as string));
    const reader = await this.connection.runAndReadAll(
      'SELECT CAST(unnest($1) AS TIMESTAMPTZ) AS v',
      [texts],
      [duckdb.LIST(duckdb.VARCHAR)],
    );
    const values = reader.getColumns()[0] ?? [];
    which.forEach((row, i) => {
      this.bigint64[row] = (values[i] as { micros: bigint }).micros;
    });
  }

  private lists(vector: Vector, rows: readonly (readonly TypedValue[])[], column: number): boolean {
    const { native, entries } = this;
    let total = 0;
    for (const row of rows) total += (row[column] as readonly string[] | null)?.length ?? 0;
    let offset = this.start === 0 ? 0 : native.list_vector_get_size(vector);
    native.list_vector_reserve(vector, offset + total);
    native.list_vector_set_size(vector, offset + total);
    const child = native.list_vector_get_child(vector);
    let nulls = false;
    for (let row = 0; row < rows.length; row += 1) {
      const items = rows[row]![column] as readonly string[] | null | undefined;
      entries[4 * row] = offset;
      entries[4 * row + 1] = 0;
      entries[4 * row + 2] = items?.length ?? 0;
      entries[4 * row + 3] = 0;
      if (items === null || items === undefined) {
        this.setNull(row);
        nulls = true;
      } else for (const item of items) native.vector_assign_string_element(child, offset++, item);
    }
    native.copy_data_to_vector(vector, this.start * 16, entries.buffer, 0, rows.length * 16);
    return nulls;
  }
}
