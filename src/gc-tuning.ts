import { setFlagsFromString } from 'node:v8';

// Imported first by bin/tds.js, before the rest of the program is loaded.
//
// An export or a push keeps allocating short-lived pages while its live heap stays small (about
// 20 MB). With incremental marking, once the first full collection has run, marking restarts
// almost at once and keeps running; every young object it reaches is then promoted, so pages in
// flight move to the old space by the megabyte and the heap climbs to 120 MB between collections
// (peak RSS about 200 MB for 1,000,000 rows instead of 130 MB). Atomic marking of so small a heap
// takes a few milliseconds. Without incremental marking, though, a full collection waits for the
// old space to reach its limit, which V8 may set far above the live heap (a run was seen with
// 190 MB of heap before one): the smaller growing factor keeps that limit near the live heap.
// Both flags are read when V8 decides on a collection, so setting them here takes effect.
setFlagsFromString('--no-incremental-marking');
setFlagsFromString('--heap-growing-percent=25');
