import type { DuckDBConnection } from '@duckdb/node-api';

// A mirror table's primary key is an ART index on `_id`. While rows are written to the table, DuckDB keeps
// the index in its memory: blocks of it that a write changed cannot be evicted before a checkpoint, and rows
// with random IDs change nearly all of them between two checkpoints. It takes about 60 bytes a row (57 MB for
// 1,000,000 rows); past DuckDB's memory limit a commit fails, and DuckDB then refuses the database until it
// is opened again, so every later sync fails the same way. While a mirror is written, the limit therefore
// follows its indexes: what they hold plus room for the statements.

/** Room beside the indexes for a group's statements, the WAL and the pages DuckDB reads. */
const HEADROOM = 40 * 2 ** 20;
/** The limit grows in steps (indexes grow a row at a time; a step lasts some 250,000 rows). */
const STEP = 16 * 2 ** 20;

const UNITS: Record<string, number> = { bytes: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40 };

/** Raises DuckDB's memory limit (never lowers it) when its indexes leave less than HEADROOM below it. */
export async function fitIndexMemory(connection: DuckDBConnection): Promise<void> {
  const reader = await connection.runAndReadAll(
    "SELECT (SELECT sum(memory_usage_bytes) FROM duckdb_memory() WHERE tag = 'ART_INDEX')::DOUBLE AS art, " +
      "current_setting('memory_limit') AS lim",
  );
  const row = reader.getRowObjectsJS()[0] ?? {};
  await raiseLimit(connection, String(row.lim ?? ''), Number(row.art ?? 0));
}

/** About what the `_id` index takes a row once it is in memory (57 MB for 1,000,000 rows). */
const INDEX_BYTES_PER_ROW = 64;

/**
 * Before the first write that changes the index of a table of `rows` rows (a row inserted or deleted):
 * the index comes into memory with that write (it is read from the file only when used), so the limit
 * is raised for it beforehand. Writes that leave it alone (rows updated in place) need no more room.
 */
export async function fitTableMemory(connection: DuckDBConnection, rows: number): Promise<void> {
  const reader = await connection.runAndReadAll("SELECT current_setting('memory_limit') AS lim");
  await raiseLimit(connection, String(reader.getRowObjectsJS()[0]?.lim ?? ''), rows * INDEX_BYTES_PER_ROW);
}

async function raiseLimit(connection: DuckDBConnection, current: string, indexBytes: number): Promise<void> {
  const needed = indexBytes + HEADROOM;
  if (needed <= limitBytes(current)) return;
  await connection.run(`SET memory_limit = '${Math.ceil((needed + STEP) / 2 ** 20)}MiB'`);
}

/** DuckDB's memory limit as it shows it ("61.0 MiB"); Infinity for anything else (no limit, or unknown: left alone). */
export function limitBytes(text: string): number {
  const match = /^([\d.]+)\s*(bytes|KiB|MiB|GiB|TiB)$/.exec(text.trim());
  return match ? Number(match[1]) * UNITS[match[2]!]! : Infinity;
}
