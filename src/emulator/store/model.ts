import { randomBytes } from 'node:crypto';
import type { CellStatus, Field } from '../../service/index.js';
import type { Prng } from '../seed/prng.js';

// The emulator's own records. What the service shows of them is built in render-row.ts and read-routes.ts.

export interface StoredCell {
  value?: unknown;
  status?: CellStatus | null;
  errorMessage?: unknown;
}

export interface StoredRow {
  id: string;
  createdAt: number; // ms
  updatedAt: number; // ms
  createdByUserId: string | null;
  cells: Record<string, StoredCell>;
}

export interface FieldRec extends Field {
  /** Webhook-fed tables: the key (dotted for nested keys) of the posted object that fills this column. */
  mapKey?: string;
  /** Long cells are served with `valuePreview` only, without `value` (the service may do that). */
  previewOnly?: boolean;
  /** Runs an action or AI: the run-status operators apply whatever the type. */
  runsAction?: boolean;
  /** Action columns: what the emulated action reads and computes (never shown: the spec hides action settings). */
  action?: ActionSettings;
}

/** How an emulated action turns its input into a value (deriveValue in cell-values.ts). */
export const DERIVE_RULES = ['domain', 'company', 'upper', 'length', 'echo'] as const;
export type DeriveRule = (typeof DERIVE_RULES)[number];

export interface ActionSettings {
  /** Field id of the input column. */
  from?: string;
  /** Field id of an action column that must be final before this one runs; its value is the input when `from` is absent. */
  dependsOn?: string;
  /** Default: echo the input (or, without one, report that the action ran). */
  derive?: DeriveRule;
}

/** Where a row sorts newest-first: createdAt, then id. */
export interface RowKey {
  createdAt: number;
  id: string;
}

/**
 * The visible rows of a table in two orders: newest first (createdAt, then id, descending) for plain pages,
 * and ascending by id for filtered and searched pages. Each walk starts just past a position, never at an offset.
 */
export interface RowSource {
  readonly size: number;
  /** Rows that sort strictly after `before` newest first (all rows without it). */
  newest(before?: RowKey): Iterable<StoredRow>;
  /** Rows whose id is strictly greater than `afterId` (all rows without it). */
  byId(afterId?: string): Iterable<StoredRow>;
}

/** A table's rows as they change: added, edited in place, removed. */
export interface RowStore extends RowSource {
  /** The stored row, which callers may edit in place (cells, updatedAt); undefined when there is none. */
  edit(id: string): StoredRow | undefined;
  add(rows: readonly StoredRow[]): void;
  /** Takes the row out; returns it, or undefined when there was none. */
  remove(id: string): StoredRow | undefined;
  /** A row drawn from `random` in [0, 1), for churn; undefined when the table is empty. */
  sample(random: number): StoredRow | undefined;
  /** Every row held in memory (for a computed table: only those it had to keep). */
  held(): Iterable<StoredRow>;
}

export interface OrgRec {
  id: string;
  name: string;
  key: string;
  paused: boolean;
}

export interface WorkspaceRec {
  id: string;
  orgId: string;
  name: string;
  isPrivate: boolean;
}

export interface TableRec {
  id: string;
  orgId: string;
  workspaceId: string;
  name: string;
  emoji: string | null;
  fields: FieldRec[];
  rows: RowStore;
  /** The secret last segment of the webhook URL, for webhook-fed tables. */
  webhookId?: string;
  /** Webhooks added later to a webhook-fed table (POST /_emulator/tables/{id}/webhooks), in the order they were made. */
  moreWebhookIds?: string[];
}

export function compareCreated(a: Pick<StoredRow, 'createdAt' | 'id'>, b: Pick<StoredRow, 'createdAt' | 'id'>): number {
  return a.createdAt - b.createdAt || compareIds(a.id, b.id);
}

export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Marks a change of the row: updatedAt becomes the clock's time, and always moves forward (by 1 ms at least,
 * when the clock stands still or two changes fall in the same millisecond), so every change is visible in it.
 */
export function touchRow(row: StoredRow, now: number): void {
  row.updatedAt = Math.max(now, row.updatedAt + 1);
}

// Identifiers are opaque to clients: realistic strings that sometimes contain `-` and `_`.

/** The base64url characters in ascending code order, so fixed-width encodings sort like the numbers. */
export const ID_ALPHABET = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';

export function seededId(prefix: string, length: number, random: Prng): string {
  let id = prefix;
  for (let i = 0; i < length; i += 1) id += ID_ALPHABET[Math.floor(random() * 64)];
  return id;
}

/** For ids made while serving (webhook rows), where a seed could repeat ids across restarts. */
export function freshId(prefix: string, length: number): string {
  const bytes = randomBytes(length);
  let id = prefix;
  for (const byte of bytes) id += ID_ALPHABET[byte & 63];
  return id;
}

/** `n` written in `width` alphabet digits, most significant first. */
export function encodeFixed(n: number, width: number): string {
  let out = '';
  let rest = n;
  for (let i = 0; i < width; i += 1) {
    out = ID_ALPHABET[rest % 64] + out;
    rest = Math.floor(rest / 64);
  }
  return out;
}

/** The number `encodeFixed` wrote, or undefined when a character is not of the alphabet. */
export function decodeFixed(text: string): number | undefined {
  let n = 0;
  for (const char of text) {
    const digit = ID_ALPHABET.indexOf(char);
    if (digit < 0) return undefined;
    n = n * 64 + digit;
  }
  return n;
}
