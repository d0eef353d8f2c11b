import type { Context } from '../core/index.js';
import { writePaged, emojiFor, tableFit } from '../output/table.js';
import { renderRecordTable, type RecordColumn } from '../output/record-table.js';
import {
  createRowShaper,
  type OutputRecord,
  planRecord,
  type RecordPlan,
  META_KEYS,
  type ShapeOptions,
  TruncationTally,
} from '../records/index.js';
import type { Table } from '../service/index.js';
import type { ExportRequest } from './export-request.js';
import type { ByteOutput, PageWriter } from './output.js';

/** What the table shows: the table's records in the export's shape, and what its footer and hints say. */
export interface TableView extends Pick<ExportRequest, 'table' | 'fields' | 'screenful'> {
  shape: ShapeOptions;
  /** No search and no filter: every row of the table is expected (its row count is the total). */
  unfiltered: boolean;
}

/** What the table writer is given by the export loop, and learns from it. */
export interface TableHooks {
  /** The columns given status keys (fixed by the first page or the checkpoint). */
  statusFields: readonly string[];
  output: ByteOutput;
  /** Called just before the table is written (the progress line goes first). */
  beforeRender(): void;
  /** Rows exist beyond those read (-n, or the screenful, stopped the export). */
  moreRows(): boolean;
}

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * `--format table`: the records of the export are held (-n, a screenful by default on a terminal,
 * keeps them few) and written at the end as one table sized to the terminal, with a footer on a
 * terminal, through the pager when it is longer than the terminal (writePaged, output/table.ts). Piped, it is
 * plain aligned text with whole cells (cut only when COLUMNS is set).
 */
export function createTableWriter(ctx: Context, view: TableView, hooks: TableHooks): PageWriter {
  const plan = planRecord(view.fields, view.shape, new Set(hooks.statusFields));
  const shape = createRowShaper(plan, view.shape.cells);
  const records: OutputRecord[] = [];
  return {
    start: async () => undefined,
    async page(state, rows) {
      const tally = new TruncationTally();
      for (const row of rows) records.push(shape(row, tally));
      state.rows += rows.length;
      state.tally.addAll(tally);
    },
    async end(state) {
      hooks.beforeRender();
      if (records.length === 0) {
        ctx.io.stderr.write(`${view.unfiltered ? 'no rows in this table' : 'no rows match'}\n`);
        return;
      }
      const { text, hints } = tableText(ctx, { view, plan, records, more: hooks.moreRows() });
      const chunk = Buffer.from(text);
      // on stdout, a table longer than the terminal goes through the pager, so its header stays on screen (as tds sql's)
      if (hooks.output.partialPath === undefined) await writePaged(ctx, text);
      else await hooks.output.write(chunk);
      state.bytes += chunk.length;
      for (const hint of hints) ctx.io.stderr.write(`hint: ${hint}\n`);
    },
  };
}

/** The records to show, and whether rows exist beyond them. */
interface TableContent {
  view: TableView;
  plan: RecordPlan;
  records: OutputRecord[];
  more: boolean;
}

/** The table (with a footer on a terminal), and the hints that go under it on stderr. */
function tableText(ctx: Context, { view, plan, records, more }: TableContent): { text: string; hints: string[] } {
  const { io } = ctx;
  const terminal = io.stdoutIsTTY;
  const { text, hidden } = renderRecordTable(records, recordColumns(plan, view.shape), tableFit(io, false));
  const total = view.unfiltered ? view.table.rowCount : undefined;
  const hints: string[] = [];
  if (more && view.screenful) {
    hints.push(
      total !== undefined && total > records.length
        ? `${count(total - records.length)} more rows: -n ${total} shows them all (the default is a screenful), --format csv writes every row for a pager or a file`
        : 'more rows match: raise -n (the default is a screenful), or use --format csv to write every row',
    );
  }
  if (hidden.length > 0) {
    const names = hidden.slice(0, 3).map((key) => JSON.stringify(key));
    hints.push(
      `${hidden.length} ${hidden.length === 1 ? 'column does' : 'columns do'} not fit the terminal (${names.join(', ')}${hidden.length > 3 ? ', …' : ''}): ` +
        `pick columns with --columns${view.shape.meta ? ', or leave out _id and the other meta keys with --no-meta' : ''}`,
    );
  }
  const counts = { shown: records.length, more, total, hidden: hidden.length };
  return { text: terminal ? `${text}\n${footer(view.table, counts)}\n` : `${text}\n`, hints };
}

/** Rows shown, whether more exist (of `total` when known), and columns left out for want of room. */
interface FooterCounts {
  shown: number;
  more: boolean;
  total: number | undefined;
  hidden: number;
}

/** `20 of 250 rows · 🚀 Leads · 14 columns not shown`. */
function footer(table: Table, { shown, more, total, hidden }: FooterCounts): string {
  const rows = `${count(shown)}${more && total !== undefined ? ` of ${count(total)}` : ''} ${shown === 1 && !more ? 'row' : 'rows'}${more && total === undefined ? ' (more match)' : ''}`;
  const name = table.emoji ? `${emojiFor(table.emoji)} ${table.name}` : table.name;
  return [rows, name, ...(hidden > 0 ? [`${hidden} ${hidden === 1 ? 'column' : 'columns'} not shown`] : [])].join(' · ');
}

/**
 * The table's columns: the table's own first, then the meta keys (_id, _createdAt, …), which a person
 * reads last; the columns named by --columns and the status columns of --status-columns are left out
 * for want of room only after the others.
 */
function recordColumns(plan: RecordPlan, shape: ShapeOptions): RecordColumn[] {
  const numeric = new Set(shape.cells === 'value' ? plan.columns.filter((c) => c.field.type === 'number').map((c) => c.key) : []);
  const members = new Set(shape.cells === 'value' ? plan.columns.filter((c) => c.field.type === 'member').map((c) => c.key) : []);
  const status = new Set(plan.columns.flatMap((column) => (column.statusKey ? [column.statusKey, column.errorKey!] : [])));
  const meta = new Set<string>(META_KEYS);
  const keys = [...plan.keys.filter((key) => !meta.has(key)), ...plan.keys.filter((key) => meta.has(key))];
  return keys.map((key) => ({
    key,
    ...(numeric.has(key) ? { align: 'right' as const } : {}),
    // a member by its name; every other object (a webhook's payload, an address) as compact JSON
    objects: members.has(key) ? ('names' as const) : ('json' as const),
    ...(key === '_id' ? { dim: true, shrink: false } : {}),
    ...((shape.columns && !meta.has(key)) || status.has(key) ? { asked: true } : {}),
  }));
}
