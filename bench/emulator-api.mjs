// @ts-check
// Requests the benches make to an emulator child themselves: the API with its key, and the emulator's admin
// routes (its request log, rows added now).
import { request } from 'undici';

/** @typedef {import('#dist/service/index.js').Table} Table */
/** @typedef {import('#dist/service/index.js').TablesResponse} TablesResponse */
/** @typedef {import('./support.mjs').Emulator} Emulator */
/** One entry of the emulator's request log (GET /_emulator/requests), the fields the benches read. @typedef {{ at: number, status: number, path: string, bucket?: string }} LoggedRequest */

/**
 * A JSON request to the emulator (API paths with the key); the parsed body, of the type the caller names.
 * @template T
 * @param {Emulator} emu
 * @param {'GET' | 'POST' | 'PATCH'} method
 * @param {string} path from the origin: `/v1/…` or `/_emulator/…`
 * @param {unknown} [body]
 * @returns {Promise<T>}
 */
export async function fetchJson(emu, method, path, body) {
  const response = await request(`${emu.origin}${path}`, {
    method,
    headers: { authorization: `Bearer ${emu.apiKey}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${path}: HTTP ${response.statusCode} ${text}`);
  return /** @type {T} */ (JSON.parse(text));
}

/**
 * The emulator's request log (key endpoints and webhook; its own /_emulator routes are not logged).
 * @param {Emulator} emu
 * @returns {Promise<LoggedRequest[]>}
 */
export function requestLog(emu) {
  return fetchJson(emu, 'GET', '/_emulator/requests');
}

/**
 * The table `--rows N` generated.
 * @param {Emulator} emu
 * @returns {Promise<Table>}
 */
export async function generatedTable(emu) {
  /** @type {TablesResponse} */
  const { tables } = await fetchJson(emu, 'GET', '/v1/tables');
  const table = tables.find((candidate) => candidate.name === 'Generated');
  if (!table) throw new Error('the emulator has no table named Generated');
  return table;
}

/**
 * Adds `count` rows created now to the generated table (admin route; no webhook delay).
 * @param {Emulator} emu
 * @param {Table} table
 * @param {number} count
 */
export async function addRows(emu, table, count) {
  const rows = Array.from({ length: count }, (_, i) => ({ cells: { Name: `New row ${i + 1}`, Amount: i, Plan: 'Pro', Active: true } }));
  /** @type {{ rows: unknown[] }} */
  const added = await fetchJson(emu, 'POST', `/_emulator/tables/${table.id}/rows`, { rows });
  if (added.rows.length !== count) throw new Error(`the emulator added ${added.rows.length} rows, not ${count}`);
}
