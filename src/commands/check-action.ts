// The action of `tds check`: syncs the checks' tables first (requireService), evaluates the checks over the
// mirror and writes the results to stdout or -o FILE, notifying --notify of what changed.

import { extname } from 'node:path';
import type { Command } from 'commander';
import { type Context, TdsError, UsageError } from '../core/index.js';
import { loadSettings, type Settings } from '../config/index.js';
import { pickTable } from '../records/index.js';
import { waitOn, syncBeforeReading, staleFields, staleText } from '../mirror/index.js';
import { checkOutputTarget, writeWhole } from '../output/index.js';
import {
  checksText,
  type CheckFormat,
  ageText,
  tally,
  tallyText,
  type CheckResult,
  DEFAULT_CHECKS_FILE,
  readChecksFile,
  type TableChecks,
  notifyChanges,
  notifyTarget,
  runChecks,
  type TableVerified,
} from '../check/index.js';
import { requireService, withClient } from './connect.js';

export interface CheckOptions {
  db?: string;
  /** false with --no-sync */
  sync: boolean;
  format?: CheckFormat;
  output?: string;
  notify?: string;
}

export async function checkAction(ctx: Context, file: string | undefined, options: CheckOptions, command: Command): Promise<void> {
  const output = options.output === '-' ? undefined : options.output;
  const format = options.format ?? (output ? checkFormatOfFile(output) : ctx.io.stdoutIsTTY ? 'table' : 'json');
  if (output) await checkOutputTarget(output);
  const settings = await loadSettings(ctx, command);
  const tables = await readChecksFile(file ?? settings.checks ?? DEFAULT_CHECKS_FILE);
  const notify = options.notify === undefined ? undefined : await notifyTarget(ctx, options.notify, settings);
  let now = Date.now();
  if (options.sync) now = (await syncTables(ctx, settings, tables)) ?? now;
  const outcome = await runChecks({
    db: settings.db,
    tables,
    now,
    record: true,
    notify: notify !== undefined,
    ...waitOn(ctx),
    signal: ctx.signal,
  });
  await writeWhole(ctx, (toFile) => Buffer.from(checksText(ctx, outcome.results, format, toFile)), output);
  for (const verified of outcome.verified) ctx.io.stderr.write(`${verified.table}: ${verifiedLine(verified, now)}\n`);
  ctx.io.stderr.write(`checks: ${tallyText(outcome.results)}${output ? ` (written to ${output})` : ''}\n`);
  if (notify) await notifyChanges(ctx, outcome, notify, { db: settings.db, wait: waitOn(ctx) });
  throwIfFailed(outcome.results);
}

/** When a table was last verified, on the service's clock (`now`), and whether that is past its recorded bound. */
function verifiedLine({ verifiedAt, maxStaleMs }: TableVerified, now: number): string {
  if (verifiedAt === null) return 'not verified yet by a pass over every row';
  const stale = staleText(staleFields({ verifiedAt, maxStaleMs }, now));
  const line = `last verified ${ageText(Math.max(0, now - Date.parse(verifiedAt)) / 1000)} ago (${verifiedAt.replace(/\.\d+Z$/, 'Z')})`;
  return stale ? `${line}; ${stale}` : line;
}

/** Exit 9 when a check failed or could not be evaluated (an `error` fails CI as a `fail` does). */
function throwIfFailed(results: readonly CheckResult[]): void {
  const counts = tally(results);
  if (counts.fail + counts.error === 0) return;
  const of = `of ${results.length} checks`;
  const errors = `could not be evaluated`;
  const message =
    counts.error === 0
      ? `${counts.fail} ${of} failed`
      : counts.fail === 0
        ? `${counts.error} ${of} ${errors}`
        : `${counts.fail} ${of} failed and ${counts.error} ${errors}`;
  throw new TdsError('CHECK_FAILED', message);
}

/**
 * The checked tables synced first (incrementally), as `tds stats` does: those the service knows; the
 * others are left to their checks' errors. Returns now on the service's clock.
 */
async function syncTables(ctx: Context, settings: Settings, tables: readonly TableChecks[]): Promise<number | undefined> {
  requireService(settings, 'tds check syncs the tables', 'check the mirror as it is');
  return withClient(ctx, settings, async (client) => {
    const listed = (await client.tables()).tables;
    const ids = new Set<string>();
    for (const table of tables) {
      try {
        ids.add(pickTable(listed, table.ref).id);
      } catch (error) {
        if (!(error instanceof TdsError) || error.code === 'INTERRUPTED') throw error;
        ctx.io.stderr.write(`tds: warning: ${error.message}: its checks use the mirror as it is\n`);
      }
    }
    // a mirror that `tds sync --follow` keeps is checked as it is (as tds stats does), each table's verification said
    if (ids.size > 0) await syncBeforeReading(ctx, client, settings.db, [...ids]);
    return client.serviceNow();
  });
}

/** -o FILE's format: .xml is JUnit, .json JSON, .txt the terminal's table. */
function checkFormatOfFile(path: string): CheckFormat {
  const extension = extname(path).toLowerCase();
  if (extension === '.xml') return 'junit';
  if (extension === '.json') return 'json';
  if (extension === '.txt') return 'table';
  throw new UsageError(`cannot tell the format of "${path}" from its extension`, {
    hint: 'use .xml (JUnit), .json or .txt, or give --format',
  });
}
