// src/parquet/: the one way a Parquet file is written: typed rows staged in a DuckDB file beside FILE
// (staging.ts, staging-files.ts; resumable for exports), one COPY to FILE.partial renamed to FILE
// (copy-out.ts). Its surface: the staged output of exports and push's `-o` (staged-output.ts), a COPY of
// a query (copy-out.ts, for `tds sql` and the lake) and the listings as Parquet (write-listing.ts).
// DuckDB loads with it: importers outside the mirror and the lake load it when a Parquet file is asked for.

export { copyOut, copyToPartial, partialPath } from './copy-out.js';
export { openStagedOutput, writeParquetFile, type StagedOutput } from './staged-output.js';
export { removeFile, removeStaging, stagingPath } from './staging-files.js';
export { writeParquetListing, type ListingColumn } from './write-listing.js';
