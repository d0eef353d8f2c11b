import { writeFile } from 'node:fs/promises';
import { request } from 'undici';
import type { Field, Row, RowsPage, Table } from '../../src/service/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { Harness, HarnessOptions } from '../helpers/emulator-fixture.js';

/** A fixed clock for date tests: Wednesday 2025-05-14 12:00 UTC. */
export const NOW = Date.UTC(2025, 4, 14, 12, 0, 0);

/**
 * The harness of the emulator's own tests: a fixed clock (NOW), no rate limits, seeded action cells as
 * seeded, and the emulator's own delays and scale (what a test does not set is the emulator's default).
 */
export const emulatorOptions = (options: HarnessOptions = {}): HarnessOptions => ({
  now: () => NOW,
  rateLimits: false,
  seededActions: 'pending',
  rateScale: undefined,
  ingestDelayMs: undefined,
  actionDelayMs: undefined,
  ...options,
});

/** An emulator of the test's own (emulatorOptions) from the fixture's `open`, for tests that start one as they go. */
export type Start = (options?: HarnessOptions) => Promise<RunningEmulator>;
export const starter =
  (open: (options?: HarnessOptions) => Promise<Harness>): Start =>
  async (options) =>
    (await open(emulatorOptions(options))).emu;

/** A reply body as tests read it: loosely typed, as JSON.parse gives it (expect() checks its shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
export type Json = any;

export interface Reply<T = Json> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface CallOptions {
  /** API key for the bearer header; null sends none. Default: the emulator's first key. */
  key?: string | null;
  headers?: Record<string, string>;
  /** Raw body; objects are sent as JSON with Content-Type application/json. */
  body?: unknown;
}

/** One HTTP call; `path` is relative to the base URL (or a full URL). */
export async function call<T = Json>(emu: RunningEmulator, method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> {
  const key = options.key === undefined ? emu.apiKey : options.key;
  const headers: Record<string, string> = { ...(key === null ? {} : { authorization: `Bearer ${key}` }) };
  let body: string | Buffer | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, options.headers);
  const url = path.startsWith('http') ? path : `${emu.baseUrl}${path}`;
  const response = await request(url, { method: method as 'GET', headers, body });
  const text = await response.body.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.statusCode, headers: response.headers, body: parsed as T, text };
}

export const get = <T = Json>(emu: RunningEmulator, path: string, options: CallOptions = {}) => call<T>(emu, 'GET', path, options);
export const post = <T = Json>(emu: RunningEmulator, path: string, body: unknown, options: CallOptions = {}) =>
  call<T>(emu, 'POST', path, { ...options, body });

export async function tableByName(emu: RunningEmulator, name: string, workspaceName?: string, key?: string): Promise<Table> {
  const { body } = await get<{ tables: Table[] }>(emu, '/tables', key === undefined ? {} : { key });
  const table = body.tables.find(
    (candidate) => candidate.name === name && (workspaceName === undefined || candidate.workspaceName === workspaceName),
  );
  if (!table) throw new Error(`no table ${name}`);
  return table;
}

export interface TableInfo {
  table: Table;
  fields: Field[];
  /** Field id by internal name. */
  id: Record<string, string>;
}

export async function tableInfo(emu: RunningEmulator, name: string, workspaceName?: string): Promise<TableInfo> {
  const table = await tableByName(emu, name, workspaceName);
  const { body } = await get<{ fields: Field[] }>(emu, `/tables/${table.id}/schema`);
  return { table, fields: body.fields, id: Object.fromEntries(body.fields.map((field) => [field.name, field.id])) };
}

/** A table as a state file holds it, without its organization and workspace (formatOneState gives them). */
export interface SavedTable {
  id: string;
  name: string;
  emoji?: string | null;
  fields: Array<Field & { runsAction?: boolean }>;
  rows?: SavedRow[];
  /** A generated table's recipe, in place of its rows. */
  generated?: { count: number; seed: number; startMs: number };
}

/** A row as a state file holds it. */
export interface SavedRow {
  id: string;
  createdAt: string;
  updatedAt: string;
  createdByUserId: string | null;
  cells: Record<string, unknown>;
}

/**
 * Writes a state file of format 1 (tds-emulator-state/1, which `dataFile` still loads): organization
 * org_1, Acme, with the API key `key`; its workspace wsp_1, named `workspace`; and `tables` in it.
 */
export async function writeFormatOneState(file: string, state: { key: string; workspace: string; tables: SavedTable[] }): Promise<void> {
  const org = { id: 'org_1', name: 'Acme', key: state.key };
  const workspace = { id: 'wsp_1', orgId: org.id, name: state.workspace, isPrivate: false };
  const tables = state.tables.map((table) => ({ orgId: org.id, workspaceId: workspace.id, emoji: null, ...table }));
  await writeFile(file, JSON.stringify({ format: 'tds-emulator-state/1', orgs: [org], workspaces: [workspace], tables }));
}

/** A seeded table of an emulator and the paths of its rows and its query. */
export interface SeededTable {
  emu: RunningEmulator;
  info: TableInfo;
  rowsPath: string;
  queryPath: string;
}

/** The file's emulator (emulatorOptions with `options`) from the fixture's `openForFile`, and its table `name`. */
export async function seededTable(
  openForFile: (options?: HarnessOptions) => Promise<Harness>,
  name: string,
  options: HarnessOptions = {},
): Promise<SeededTable> {
  const emu = (await openForFile(emulatorOptions(options))).emu;
  const info = await tableInfo(emu, name);
  const rowsPath = `/tables/${info.table.id}/rows`;
  return { emu, info, rowsPath, queryPath: `${rowsPath}/query` };
}

/** Every row of a GET …/rows or POST …/rows/query walk, following nextCursor. */
export async function allRows(emu: RunningEmulator, tableId: string, query?: Record<string, unknown>, limit = 100): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 10_000; pages += 1) {
    const reply = query
      ? await post<RowsPage>(emu, `/tables/${tableId}/rows/query`, { ...query, limit, ...(cursor ? { cursor } : {}) })
      : await get<RowsPage>(emu, `/tables/${tableId}/rows?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (reply.status !== 200) throw new Error(`HTTP ${reply.status}: ${reply.text}`);
    rows.push(...reply.body.rows);
    if (!reply.body.hasNextPage) {
      if (reply.body.nextCursor !== null) throw new Error('last page with a nextCursor');
      return rows;
    }
    cursor = reply.body.nextCursor!;
  }
  throw new Error('too many pages');
}

export function queryRows(emu: RunningEmulator, tableId: string, filters: unknown, extra: Record<string, unknown> = {}) {
  return allRows(emu, tableId, { filters, ...extra });
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The status of each cell of a row, by field id. */
export const statuses = (row: Row): Record<string, string | null | undefined> =>
  Object.fromEntries(Object.entries(row.cells).map(([id, cell]) => [id, cell.status]));
