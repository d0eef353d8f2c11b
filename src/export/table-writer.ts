import type { Context } from '../core/context.js';
import type { OutputRecord } from '../records/output-record.js';
import { planRecord, type RecordPlan } from '../records/record-plan.js';
import { createRowShaper } from '../records/row-shaper.js';
import { TruncationTally } from '../records/truncation-tally.js';
import { renderRecordTable, type RecordColumn } from '../output/record-table.js';
import { emojiFor } from '../output/table.js';
import type { ExportRequest } from './export-request.js';
import type { ByteOutput } from './export-output.js';
import type { PageWriter } from './page-writer.js';

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
 * terminal. Piped, it is plain aligned text with whole cells (cut only when COLUMNS is set).
 */
export function createTableWriter(ctx: Context, request: ExportRequest, hooks: TableHooks): PageWriter {
  const plan = planRecord(request.fields, request.shape, new Set(hooks.statusFields));
  const shape = createRowShaper(plan, request.shape.cells);
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
        ctx.io.stderr.write(`${unfiltered(request) ? 'no rows in this table' : 'no rows match'}\n`);
        return;
      }
      const { text, hints } = tableText(ctx, request, plan, records, hooks.moreRows());
      const chunk = Buffer.from(text);
      await hooks.output.write(chunk);
      state.bytes += chunk.length;
      for (const hint of hints) ctx.io.stderr.write(`hint: ${hint}\n`);
    },
  };
}

/** The table (with a footer on a terminal), and the hints that go under it on stderr. */
function tableText(
  ctx: Context,
  request: ExportRequest,
  plan: RecordPlan,
  records: OutputRecord[],
  more: boolean,
): { text: string; hints: string[] } {
  const { io } = ctx;
  const terminal = io.stdoutIsTTY;
  const width = terminal || io.env.COLUMNS ? io.terminalWidth : Infinity;
  const color = terminal && io.colorEnabled ? io.color : undefined;
  const { text, hidden } = renderRecordTable(records, recordColumns(plan, request), { width, ...(color ? { color } : {}) });
  const total = unfiltered(request) ? request.table.rowCount : undefined;
  const hints: string[] = [];
  if (more && request.screenful) {
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
        `pick columns with --columns${request.shape.meta ? ', or leave out _id and the other meta keys with --no-meta' : ''}`,
    );
  }
  return { text: terminal ? `${text}\n${footer(request, records.length, more, total, hidden.length)}\n` : `${text}\n`, hints };
}

/** `20 of 250 rows · 🚀 Leads · 14 columns not shown`. */
function footer(request: ExportRequest, shown: number, more: boolean, total: number | undefined, hidden: number): string {
  const { table } = request;
  const rows = `${count(shown)}${more && total !== undefined ? ` of ${count(total)}` : ''} ${shown === 1 && !more ? 'row' : 'rows'}${more && total === undefined ? ' (more match)' : ''}`;
  const name = table.emoji ? `${emojiFor(table.emoji)} ${table.name}` : table.name;
  return [rows, name, ...(hidden > 0 ? [`${hidden} ${hidden === 1 ? 'column' : 'columns'} not shown`] : [])].join(' · ');
}

function recordColumns(plan: RecordPlan, request: ExportRequest): RecordColumn[] {
  const numeric = new Set(request.shape.cells === 'value' ? plan.columns.filter((c) => c.field.type === 'number').map((c) => c.key) : []);
  return plan.keys.map((key) => ({
    key,
    ...(numeric.has(key) ? { align: 'right' as const } : {}),
    ...(key === '_id' ? { dim: true, shrink: false } : {}),
  }));
}

function unfiltered(request: ExportRequest): boolean {
  return request.search === '' && !request.filters?.rules.length;
}
