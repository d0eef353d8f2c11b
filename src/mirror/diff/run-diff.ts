import type { Context } from '../../core/index.js';
import { createAtomicFile, claimOutput, type DataFormat, type Format } from '../../output/index.js';
import { createRecordWriter } from '../../output/page-encoder.js';
import { firstRows, resultCellText } from '../../output/record-table.js';
import { renderTable, tableFit } from '../../output/table.js';
import type { OutputRecord } from '../../records/index.js';
import { returnFreedMemory } from '../../duckdb/index.js';
import { openMirror, waitOn } from '../mirror-db.js';
import { staleFields, staleText, type TableState } from '../table-state.js';
import { openDiff, type DiffRequest, type OpenedDiff } from './open-diff.js';
import type { DiffCounts, DiffRecord, KeyChanges } from './table-diff.js';
export interface DiffCommandRequest extends DiffRequest {
  db: string;
  format: Format;
  /** -o FILE (written atomically); stdout when undefined */
  output?: string;
  summary: boolean;
}

/**
 * DuckDB's buffer pool for a diff: the join of two snapshots spills beside the mirror past it. The
 * comparison keeps within a sync's 64 MB (table-diff.ts, as `sync --changes` runs it); freed pages go back
 * to the system FREED_AFTER_MS after they are freed, not at once: over 100,000 updated rows of 1,000,000,
 * 3.4 s and 233 MB peak with 128 MB returned at once, 2.2 s and 226 MB so (paired, docs/performance.md).
 */
const MEMORY_LIMIT = '64MB';
const FREED_AFTER_MS = 20;

/** `tds diff`: the mirror opened read-only, the table compared at two moments, written to stdout or -o FILE. */
export async function runDiff(ctx: Context, request: DiffCommandRequest): Promise<void> {
  // the comparison's temporary tables are made and dropped (kept as long as DuckDB's default keeps them: 290-300 MB)
  returnFreedMemory(FREED_AFTER_MS);
  const db = await openMirror(request.db, { readOnly: true, memoryLimit: MEMORY_LIMIT, ...waitOn(ctx) });
  try {
    const opened = await openDiff(db, request);
    const lock = request.output ? await claimOutput(request.output, 'another tds command') : undefined;
    try {
      const file = request.output ? await createAtomicFile(request.output, { fresh: true }) : undefined;
      const sink = file?.stream ?? ctx.io.stdout;
      try {
        if (request.summary) {
          const { counts, keys } = await opened.diff.summary();
          await writeDiffSummary(sink, summaryReport(opened, counts, keys), request.format);
        } else {
          const count = await writeDiffRecords(ctx, sink, interruptible(ctx, opened.diff.records()), {
            format: request.format,
            toFile: Boolean(file),
          });
          ctx.io.stderr.write(
            `${opened.mirrorTable}: ${count.toLocaleString('en-US')} ${count === 1 ? 'row differs' : 'rows differ'} between ${opened.since.label} and ${opened.until.label}; ${verifiedText(opened, Date.now())}\n`,
          );
        }
        await file?.commit();
      } catch (error) {
        await file?.discard();
        throw error;
      }
    } finally {
      await lock?.release();
    }
  } finally {
    db.close();
  }
}

/** The records until Ctrl-C (between two records, never within one). */
async function* interruptible(ctx: Context, records: AsyncIterable<DiffRecord>): AsyncGenerator<DiffRecord> {
  for await (const record of records) {
    ctx.signal.throwIfAborted();
    yield record;
  }
}

/** When the mirror table was last exact (docs/sync.md "Freshness"), and whether that is past its recorded bound at `now`. */
export function verifiedText(table: Pick<TableState, 'verifiedAt' | 'maxStaleMs'>, now: number): string {
  if (table.verifiedAt === null) return 'not verified by a pass over every row yet';
  const stale = staleText(staleFields(table, now));
  return `exact as of ${table.verifiedAt} (its last pass over every row)${stale ? `; ${stale}` : ''}`;
}

// The output of `tds diff`: NDJSON/JSON one record per row that differs; CSV/TSV and the terminal
// table one line per changed value (`change,_id,key,before,after`); `--summary` the counts and value
// transitions instead.

/** A terminal table holds at most this many lines (the rest is said on stderr): --format csv streams any number. */
const TABLE_MAX_LINES = 1000;
const LINE_KEYS = ['change', '_id', 'key', 'before', 'after'];
const RECORD_KEYS = ['change', '_id', 'before', 'after'];

export interface WriteDiffOptions {
  format: Format;
  /** The sink is a file (-o): no terminal sizing or colour. */
  toFile: boolean;
}

/** Writes the diff's records to `sink`; returns how many rows differ. */
export async function writeDiffRecords(
  ctx: Context,
  sink: NodeJS.WritableStream,
  records: AsyncIterable<DiffRecord>,
  options: WriteDiffOptions,
): Promise<number> {
  const { format } = options;
  let count = 0;
  if (format === 'ndjson' || format === 'json') {
    const writer = createRecordWriter(sink, { format, columns: RECORD_KEYS });
    for await (const record of records) {
      count += 1;
      await writer.write(record as unknown as OutputRecord);
    }
    await writer.end();
    return count;
  }
  const lines = valueLines(records, () => (count += 1));
  if (format === 'table') await writeTable(ctx, sink, lines, options.toFile);
  else {
    const writer = createRecordWriter(sink, { format: format as DataFormat, columns: LINE_KEYS });
    for await (const line of lines) await writer.write(line);
    await writer.end();
  }
  return count;
}

/** One line per changed value: an added row's every value, a deleted row's every value, an updated row's changed ones. */
async function* valueLines(records: AsyncIterable<DiffRecord>, onRecord: () => void): AsyncGenerator<OutputRecord> {
  for await (const { change, _id, before, after } of records) {
    onRecord();
    for (const key of Object.keys(after ?? before ?? {})) {
      yield {
        change,
        _id,
        key,
        before: (before?.[key] ?? null) as OutputRecord[string],
        after: (after?.[key] ?? null) as OutputRecord[string],
      };
    }
  }
}

async function writeTable(ctx: Context, sink: NodeJS.WritableStream, lines: AsyncIterable<OutputRecord>, toFile: boolean): Promise<void> {
  const { rows, more } = await firstRows(lines, TABLE_MAX_LINES);
  const columns = LINE_KEYS.map((key) => ({
    header: key,
    value: (row: OutputRecord) => resultCellText(row[key]),
    shrink: key === 'before' || key === 'after',
  }));
  if (rows.length > 0) sink.write(`${renderTable(rows, columns, tableFit(ctx.io, toFile))}\n`);
  if (more > 0)
    ctx.io.stderr.write(`(${more.toLocaleString('en-US')} more changed values not shown: use --format csv or ndjson, or --summary)\n`);
}

/** What `--summary` says: the table, the two moments, counts per change, and per key its changes. */
export interface DiffSummaryReport {
  table: string;
  tableId: string;
  mirrorTable: string;
  since: string;
  until: string;
  added: number;
  updated: number;
  deleted: number;
  keys: KeyChanges[];
}

export function summaryReport(opened: OpenedDiff, counts: DiffCounts, keys: KeyChanges[]): DiffSummaryReport {
  return {
    table: opened.name,
    tableId: opened.tableId,
    mirrorTable: opened.mirrorTable,
    since: opened.since.label,
    until: opened.until.label,
    ...counts,
    keys,
  };
}

export async function writeDiffSummary(sink: NodeJS.WritableStream, report: DiffSummaryReport, format: Format): Promise<void> {
  if (format === 'ndjson' || format === 'json') {
    sink.write(`${JSON.stringify(report, null, format === 'json' ? 2 : undefined)}\n`);
    return;
  }
  if (format === 'table') {
    sink.write(summaryText(report));
    return;
  }
  const writer = createRecordWriter(sink, { format, columns: ['change', 'key', 'before', 'after', 'count'] });
  for (const change of ['added', 'updated', 'deleted'] as const) {
    await writer.write({ change, key: null, before: null, after: null, count: report[change] });
  }
  for (const key of report.keys) {
    for (const transition of key.transitions) {
      const { before, after, count } = transition;
      await writer.write({
        change: 'updated',
        key: key.key,
        before: before as OutputRecord[string],
        after: after as OutputRecord[string],
        count,
      });
    }
  }
  await writer.end();
}

const n = (value: number): string => value.toLocaleString('en-US');

/** `Enrich.status: queued → success 97, queued → failed 23` and the like, under the counts. */
export function summaryText(report: DiffSummaryReport): string {
  const show = (value: unknown): string => {
    const text = value === null ? '(empty)' : typeof value === 'string' ? value : JSON.stringify(value);
    return text.length > 40 ? `${text.slice(0, 39)}…` : text;
  };
  const lines = [
    `${report.mirrorTable}: ${report.since} → ${report.until}`,
    `  ${n(report.added)} added, ${n(report.updated)} updated, ${n(report.deleted)} deleted`,
    ...report.keys.map((key) => {
      const transitions = key.transitions.map((t) => `${show(t.before)} → ${show(t.after)} ${n(t.count)}`).join(', ');
      return `  ${key.key}: ${transitions}${key.more > 0 ? `, … (${n(key.more)} more)` : ''}`;
    }),
  ];
  return `${lines.join('\n')}\n`;
}
