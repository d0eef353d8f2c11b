import { createRequire } from 'node:module';
import { TdsError, UsageError, closest } from '../core/index.js';
import type { Table, Workspace } from '../service/index.js';

// A table (or a workspace) as every command names it (an ID, its name, with or without its emoji, any case when no name
// matches exactly), matched in a listing of tables: pure, so the mirror and the commands share it without HTTP.

/**
 * TABLE as every command takes it: an ID first, then a name as `tableNameMatches` reads it; when no
 * name matches exactly, one that matches ignoring case (`leads` → "Leads"). A typo gets "did you mean".
 */
export function pickTable(tables: Table[], ref: string): Table {
  const byId = tables.find((table) => table.id === ref);
  if (byId) return byId;
  const named = matchName(tables, ref, (table, name, folding) => tableNameMatches(foldTable(table, folding), name));
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    const list = named.map((table) => `${table.id} (workspace "${table.workspaceName}")`).join(', ');
    throw new UsageError(`table name "${ref}" matches ${named.length} tables: ${list}`, {
      hint: 'give the table ID instead of its name',
    });
  }
  const near = new Set(
    closest(
      plainName(ref),
      tables.map((table) => table.name),
    ),
  );
  const close = tables.filter((table) => near.has(table.name) || table.id.toLowerCase() === fold(ref));
  throw new TdsError('NOT_FOUND', `no table with ID or name "${ref}" in this organization`, {
    ...(close.length
      ? { hint: `did you mean ${close.map((table) => `"${table.name}" (${table.id})`).join(' or ')}?` }
      : { reason: 'unknown-table' as const }),
  });
}

/**
 * The one rule for a name: the items `matches` finds for `ref` as written; when none, those it finds
 * for `ref` lower-cased, comparing lower-cased names (`matches` gets the folding to apply to them).
 */
export function matchName<T>(
  items: readonly T[],
  ref: string,
  matches: (item: T, ref: string, fold?: (text: string) => string) => boolean,
): T[] {
  const exact = items.filter((item) => matches(item, ref));
  if (exact.length > 0) return exact;
  return items.filter((item) => matches(item, fold(ref), fold));
}

/** A reference without its leading emoji or shortcode, for "did you mean" (`:rocket: Leeds` → `Leeds`). */
export function plainName(ref: string): string {
  return ref.replace(/^(:[^:\s]+:|[\p{Extended_Pictographic}\p{Regional_Indicator}\uFE0F\u20E3\u200D]+)\s?/u, '');
}

const foldTable = (table: Table, folding?: (text: string) => string): Pick<Table, 'name' | 'emoji'> =>
  folding ? { name: folding(table.name), emoji: table.emoji } : table;

/**
 * Whether `ref` names the table: its exact name, or the name after its emoji as `tds tables` shows it
 * ("🏢 Companies") or after the emoji's shortcode (":office: Companies"), with one space between or none.
 * The emoji matches with or without a variation selector, and by any shortcode node-emoji knows for it.
 */
export function tableNameMatches(table: Pick<Table, 'name' | 'emoji'>, ref: string): boolean {
  if (ref === table.name) return true;
  if (!table.emoji || PLAIN.test(ref)) return false;
  const glyph = glyphOf(table.emoji);
  for (const candidate of new Set([ref, withGlyph(ref)])) {
    for (const prefix of new Set([table.emoji, glyph, bare(glyph)])) {
      if (!candidate.startsWith(prefix)) continue;
      const rest = candidate.slice(prefix.length).replace(/^\uFE0F/, '');
      if (rest === table.name || rest === ` ${table.name}`) return true;
    }
  }
  return false;
}

/** The emoji of a shortcode (`:office:` → 🏢); anything else (an unknown shortcode, a glyph) as it is. */
function glyphOf(emoji: string): string {
  const code = /^:([^:\s]+):$/.exec(emoji)?.[1];
  return (code !== undefined && emojiGlyph(code)) || emoji;
}

/** A reference that starts with a known shortcode, with that shortcode as its emoji. */
function withGlyph(ref: string): string {
  return ref.replace(/^:([^:\s]+):/, (shortcode, code: string) => emojiGlyph(code) ?? shortcode);
}

/** A reference with no shortcode and no emoji can only be a plain name: no need to load node-emoji's table. */
const PLAIN = /^[^:\p{Extended_Pictographic}\p{Regional_Indicator}\uFE0F\u20E3\u200D]*$/u;

/** node-emoji's lookup, loaded on first use: most commands name tables plainly and never need it. */
function emojiGlyph(code: string): string | undefined {
  const load = createRequire(import.meta.url);
  return (load('node-emoji') as typeof import('node-emoji')).get(code);
}

const bare = (glyph: string): string => glyph.replaceAll('\uFE0F', '');
const fold = (text: string): string => text.toLowerCase();

/**
 * A workspace by ID, else by name as written, else by name ignoring case (`marketing` → "Marketing"), the
 * rule of table names; unknown → exit 4 with "did you mean", ambiguous → exit 2.
 */
export function pickWorkspace<W extends Pick<Workspace, 'id' | 'name'>>(workspaces: readonly W[], ref: string): W {
  const byId = workspaces.find((workspace) => workspace.id === ref);
  if (byId) return byId;
  const named = matchName(workspaces, ref, (workspace, name, folding) => (folding ? folding(workspace.name) : workspace.name) === name);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    throw new UsageError(`workspace name "${ref}" matches ${named.length} workspaces: ${named.map((w) => w.id).join(', ')}`, {
      hint: 'give the workspace ID instead of its name',
    });
  }
  const near = closest(
    ref,
    workspaces.map((workspace) => workspace.name),
  );
  throw new TdsError('NOT_FOUND', `no workspace with ID or name "${ref}" in this organization`, {
    ...(near.length > 0
      ? { hint: `did you mean ${near.map((name) => `"${name}"`).join(' or ')}? \`tds workspaces\` lists them` }
      : { reason: 'unknown-workspace' as const }),
  });
}
