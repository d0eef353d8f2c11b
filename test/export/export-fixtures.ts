import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { ExportRequest, FetchPage } from '../../src/export/export-request.js';
import { openFile, type FileOpener } from '../../src/output/atomic-file.js';
import type { Field, Row, RowsPage } from '../../src/service/index.js';
import { memoryContext, type MemoryContext, type MemoryContextOptions } from '../helpers/context.js';

// A table of 23 rows served in pages by offset cursors, a context with captured stdout/stderr, and an
// export request: the in-process export tests' fixtures.

export const fields: Field[] = [
  { id: 'f_name', name: 'name', label: 'Name', type: 'text', options: null, isSystem: false },
  { id: 'f_notes', name: 'notes', label: 'Notes', type: 'text', options: null, isSystem: false },
];

export function makeRow(i: number, createdAt = '2024-01-01T00:00:00.000Z'): Row {
  return {
    id: `row_${String(i).padStart(3, '0')}`,
    tableId: 'tbl_1',
    createdAt,
    updatedAt: createdAt,
    createdByUserId: null,
    cells: { f_name: { value: `Name ${i}` } },
  };
}

export const rows: Row[] = Array.from({ length: 23 }, (_, i) => makeRow(i));

export interface Service {
  fetchPage: FetchPage;
  calls: Array<{ cursor: string | undefined; limit: number }>;
}

export interface ServiceOptions {
  /** the error to throw on the n-th call (from 1), if any */
  fail?: (call: number) => Error | undefined;
  /** rows a page after the first repeats of the page before it */
  overlap?: number;
}

/** Pages of `source` (the service's order) by offset cursors, failing or overlapping as `options` say. */
export function service(source: () => readonly Row[] = () => rows, options: ServiceOptions = {}): Service {
  const calls: Service['calls'] = [];
  return {
    calls,
    fetchPage: async (cursor, limit) => {
      calls.push({ cursor, limit });
      const failure = options.fail?.(calls.length);
      if (failure) throw failure;
      const all = source();
      const start = cursor === undefined ? 0 : Number(cursor);
      const from = Math.max(0, start - (cursor === undefined ? 0 : (options.overlap ?? 0)));
      const end = Math.min(all.length, start + limit);
      const page: RowsPage = {
        rows: all.slice(from, end),
        limit,
        nextCursor: end < all.length ? String(end) : null,
        hasNextPage: end < all.length,
      };
      return page;
    },
  };
}

export type TestContext = MemoryContext;

/** A context whose stdout and stderr are captured; `verbose` lines go to stderr too when asked. */
export function context(options: MemoryContextOptions = {}): TestContext {
  return memoryContext(options);
}

export function request(overrides: Partial<ExportRequest> = {}): ExportRequest {
  return {
    table: { id: 'tbl_1', name: 'T', emoji: null, workspaceId: 'w', workspaceName: 'W', rowCount: rows.length, fieldCount: 2 },
    fields,
    endpoint: 'rows',
    search: '',
    shape: { header: 'label', meta: true, system: true, cells: 'value', statusColumns: false },
    format: 'csv',
    csv: { bom: false, crlf: false, safeFormulas: false },
    pageSize: 5,
    resume: false,
    restart: false,
    onTruncated: 'warn',
    rowWindow: { requests: 60, perMs: 60_000 },
    ...overrides,
  };
}

let folder: string | undefined;

/** Where tempFile makes its folders: the test's own (the fixture's `tmp`, removed after it), set by each file before each test. */
export const useTempFolder = (tmp: string): void => void (folder = tmp);

/** A path named `name` in a new folder of the test's own. */
export const tempFile = async (name: string): Promise<string> => {
  if (!folder) throw new Error('tempFile needs it.beforeEach(({ tmp }) => useTempFolder(tmp))');
  return join(await mkdtemp(join(folder, 'export-')), name);
};

function enospc(syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, ${syscall}`), { code: 'ENOSPC', errno: -28, syscall });
}

/**
 * A disk with `room` bytes left: writes go to the real file until the room is used, then fail as a full
 * disk fails (ENOSPC, after a short write of what fits); once full, fsync fails too, as it may on a real
 * full disk (so a checkpoint cannot be written either).
 */
export function diskWithRoom(room: number): FileOpener {
  return async (path, flags) => {
    const real = await openFile(path, flags);
    let used = 0;
    let full = false;
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        if (used + chunk.length > room) {
          full = true;
          // What fits is written, as a real short write does; the rest fails.
          real.stream.write(chunk.subarray(0, Math.max(0, room - used)), () => callback(enospc('write')));
          used = room;
          return;
        }
        used += chunk.length;
        real.stream.write(chunk, callback);
      },
      final(callback) {
        real.stream.end(callback);
      },
    });
    return { stream, sync: async () => (full ? Promise.reject(enospc('fsync')) : real.sync()) };
  };
}
