// src/lake/: the lake of `tds sync --lake DIR`, what each sync of a mirror table wrote, as Parquet files
// in Hive partitions that other engines read without tds. Its surface: `writeLake` after a table's sync
// and `lakeFolder`, a table's folder (lake.ts, with the `_tds_lake` table of which syncs reached which
// lake), `compactFolder` (compact.ts: a table's changes rewritten into a snapshot) and `checkLake`
// (lake-check.ts: a lake compared with its mirror). Inside: commit-partition.ts writes a partition's
// file aside and renames it, recipes.ts the README of each table's folder, retyped-files.ts reads a
// retyped column's older files, lake-columns.ts the name each field's column keeps in the lake.

export { compactFolder } from './compact.js';
export { checkLake, type LakeCheck, type TableCheck } from './lake-check.js';
export { folderIdentity, folderProblems, lakeFolder, writeLake } from './lake.js';
