import { rm, unlink } from 'node:fs/promises';

/** The staging file beside FILE (DuckDB adds `.wal` beside it): the typed rows of a Parquet file under way. */
export function stagingPath(path: string): string {
  return `${path}.tds-staging.duckdb`;
}

/** Removes FILE's staging file, its WAL and the folder DuckDB spills to beside it. */
export async function removeStaging(path: string): Promise<void> {
  const staging = stagingPath(path);
  await removeFile(staging);
  await removeFile(`${staging}.wal`);
  await rm(`${staging}.tmp`, { recursive: true, force: true });
}

/** Removes a file that may not be there. */
export async function removeFile(path: string): Promise<void> {
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT' && error.code !== 'ENOTDIR') throw error;
  });
}
