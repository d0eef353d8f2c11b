import { DuckDBInstance } from '@duckdb/node-api';

// A Parquet file read back by DuckDB (its own reader, not tds's code), for the Parquet export tests:
// the columns with their types, and the rows as plain values (instants as ISO 8601 text, JSON columns
// as the JSON value they hold, lists as arrays), in the file's order.

export interface ParquetColumn {
  name: string;
  /** DuckDB's name of the type: VARCHAR, DOUBLE, BOOLEAN, TIMESTAMP WITH TIME ZONE, VARCHAR[], JSON. */
  type: string;
}

export interface ParquetFile {
  columns: ParquetColumn[];
  rows: Array<Record<string, unknown>>;
}

/** The row meta columns a Parquet file of rows begins with, as `columnTypes` gives them. */
export const META_COLUMN_TYPES = [
  '_id VARCHAR',
  '_createdAt TIMESTAMP WITH TIME ZONE',
  '_updatedAt TIMESTAMP WITH TIME ZONE',
  '_createdByUserId VARCHAR',
];

/** Each column of the file as `name type`. */
export const columnTypes = (file: ParquetFile): string[] => file.columns.map((column) => `${column.name} ${column.type}`);

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** SQL that gives a column's value as something JavaScript holds exactly. */
function plainSql(column: ParquetColumn): string {
  const name = quote(column.name);
  if (column.type === 'TIMESTAMP WITH TIME ZONE') return `epoch_ms(${name})`;
  if (column.type === 'JSON') return `CAST(${name} AS VARCHAR)`;
  if (column.type.endsWith('[]')) return `CAST(to_json(${name}) AS VARCHAR)`;
  return name;
}

function plainValue(column: ParquetColumn, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (column.type === 'TIMESTAMP WITH TIME ZONE') return new Date(Number(value)).toISOString();
  if (column.type === 'JSON' || column.type.endsWith('[]')) return JSON.parse(String(value)) as unknown;
  return value;
}

export async function readParquet(path: string): Promise<ParquetFile> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const source = `read_parquet('${path.replace(/'/g, "''")}')`;
    const described = (await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`)).getRowObjectsJS();
    const columns = described.map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
    const select = columns.map((column, i) => `${plainSql(column)} AS c${i}`).join(', ');
    const read = await connection.runAndReadAll(`SELECT ${select} FROM ${source}`);
    const rows = read
      .getRowsJS()
      .map((values) => Object.fromEntries(columns.map((column, i) => [column.name, plainValue(column, values[i])])));
    return { columns, rows };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
