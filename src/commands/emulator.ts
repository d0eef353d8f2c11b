// `tds emulator`: the service on loopback, for tests and trials; its action is in emulator-action.ts.

import { Command, Option } from 'commander';
import { type Context, UsageError, parseIntegerOption, parseNumberOption } from '../core/options.js';
import {
  ChurnSpecError,
  parseChurnRates,
  DEFAULT_ACTION_DELAY_MS,
  DEFAULT_HOST,
  DEFAULT_INGEST_DELAY_MS,
  DEFAULT_PORT,
  SEED_NAMES,
  SEEDED_ACTIONS,
  FaultSpecError,
  parseFaultSpec,
  LatencySpecError,
  parseLatency,
  type LatencySpec,
} from '../emulator/options.js';
import type { EmulatorFlags } from './emulator-action.js';
import { SUMMARIES } from './summaries.js';

const HELP = `
Prints one JSON line on stdout when ready: {"baseUrl", "apiKey", "webhooks": {tableId: url}};
requests are logged on stderr with --verbose (keys and webhook ids redacted). Stops on Ctrl-C or
SIGTERM, saving --data.

Action columns run on rows that arrive (webhook, churn, admin routes): each cell goes queued ->
running -> success, failed, skipped or stopped, one step every --action-delay ms (a column that
depends on another one is "waiting" first); outcomes follow --fault-seed; each step moves updatedAt.
The seeded cells that are not final (queued, waiting, running) run on the same way from the start;
--seeded-actions pending keeps them as seeded, for tests that need every status in the demo data.
The demo table Marketing/Inbox has two: Domain (the domain of Email) and Company (waits for Domain).

Churn (--churn SPEC): a comma list of add:RATE/s, update:RATE/s, delete:RATE/s, rerun:RATE/s (also
/m, /h; a rerun is "re-run column" on one row: its action cells run again), and optionally table=NAME
(a table's name or ID) to change only that table; seeded by --fault-seed.

Latency (--latency MS[,JITTER]): half of the round trip passes before a request of the service is
counted and handled, half before its answer leaves; each half varies by up to JITTER/2 at random.

Fault specs (for reliability tests): a comma list of KIND:P (probability 0..1), KIND@N or KIND@N-M
(the N-th to M-th request of that surface, counting from 1). Kinds: 500 502 503 429 429bare reset
stall 500pre 502pre 503pre resetpre. On the webhook, 500/502/503/reset/stall come after the objects
were accepted (rows may have been added); 500pre/502pre/503pre/resetpre fail before anything is
stored. On reads every fault replaces the response (a -pre kind is its plain kind there).

Emulator-only routes (not part of the service, no key, JSON in and out; errors as
{statusCode, error: "API Error", message}: 400 bad input, 404 unknown table, row or field):
  GET    /_emulator/requests                          the request log
  POST   /_emulator/flush                             the intake's webhook rows show now
The admin routes below answer only on a loopback address, or with --admin (else 404):
  POST   /_emulator/tables                            {workspace, name, emoji?, webhook?, fields: [FieldDefinition]}
  POST   /_emulator/tables/TABLE/rows                 {rows: [{cells, createdAt?, createdByUserId?}]}
  PATCH  /_emulator/tables/TABLE/rows/ROW             {cells}   (null clears a cell)
  DELETE /_emulator/tables/TABLE/rows/ROW
  POST   /_emulator/tables/TABLE/rows/delete          {ids: [ROW, ...]}
  POST   /_emulator/tables/TABLE/fields               FieldDefinition
  PATCH  /_emulator/tables/TABLE/fields/FIELD         {label?, name?, type?, options?}
  DELETE /_emulator/tables/TABLE/fields/FIELD
  POST   /_emulator/tables/TABLE/webhooks             another webhook of a webhook-fed table -> {webhookUrl}
  GET    /_emulator/tables/TABLE/webhooks             -> {rows, capacity, webhooks: [{webhookUrl, submissions, dropped, budget}]}
  GET    /_emulator/clock                             -> {now, offsetMs}
  POST   /_emulator/clock                             {advanceMs} or {offsetMs}
FieldDefinition: {label, type, name?, options?: [{label, value}], mapKey? (webhook tables: the posted key),
action?: {from?, dependsOn?, derive?: domain|company|upper|length|echo}}. Cells are keyed by field
ID, label or name; a cell is a value or {value?, status?, errorMessage?}.

Examples:
  $ tds emulator                                   # demo data on http://127.0.0.1:8787/v1
  $ tds emulator --port 0 --seed empty             # a free port, an organization without data
  $ tds emulator --data state.json                 # keep pushed rows across restarts
  $ tds emulator --rows 1000000 --no-rate-limits   # a 1,000,000-row table "Generated" for benchmarks
  $ tds emulator --rate-scale 100 --faults '500:0.1,reset@3' --fault-seed 7   # with TDS_RATE_SCALE=100 for tds
  $ tds emulator --action-delay 200 --churn 'add:5/s,update:2/s,delete:0.1/s'
  $ tds emulator --rows 100000 --churn 'add:100/s,table=Generated'
  $ tds emulator --latency 200,20                  # a 200 ms round trip (± 20 ms), as across an ocean
  $ tds emulator --webhook-budget 50000 --table-capacity 50000   # the limits production has (issue 45)
  $ curl -X POST http://127.0.0.1:8787/_emulator/clock -d '{"advanceMs": 86400000}'
`;

export function emulatorCommand(ctx: Context): Command {
  return new Command('emulator')
    .description(SUMMARIES.emulator.description)
    .option('--host <host>', 'address to bind', DEFAULT_HOST)
    .option('--port <port>', 'port to listen on (0 = a free port)', parseIntegerOption('--port', 0, 65_535), DEFAULT_PORT)
    .addOption(new Option('--seed <name>', 'initial data').choices(SEED_NAMES).default('demo'))
    .option('--data <file>', 'load state from FILE if it exists; save it there on exit')
    .option('--rows <n>', 'add workspace "Bench" with table "Generated" of N rows', parseIntegerOption('--rows', 0, 100_000_000))
    .option('--paused', "the first organization's subscription is paused (402 on key endpoints)")
    .option('--no-rate-limits', 'turn every rate limit off')
    .addOption(
      // the same variable as the client's, so that one setting scales both sides of a test alike
      new Option('--rate-scale <x>', 'run rate-limit windows and webhook intake X times faster (retry-after stays in service seconds)')
        .env('TDS_RATE_SCALE')
        .argParser(parseNumberOption('--rate-scale', 1e-6, 1e6)),
    )
    .option(
      '--ingest-delay <ms>',
      `quiet delay before webhook rows show, in service ms (default ${DEFAULT_INGEST_DELAY_MS}; divided by --rate-scale)`,
      parseIntegerOption('--ingest-delay', 0, 3_600_000),
    )
    .option('--faults <spec>', 'fault spec for both the key endpoints and the webhook', faultSpec('--faults'))
    .option('--read-faults <spec>', 'fault spec for the key endpoints (overrides --faults)', faultSpec('--read-faults'))
    .option('--webhook-faults <spec>', 'fault spec for the webhook (overrides --faults)', faultSpec('--webhook-faults'))
    .option(
      '--fault-seed <n>',
      'seed of fault draws, action outcomes and churn (default 1)',
      parseIntegerOption('--fault-seed', 0, 2 ** 32 - 1),
    )
    .option(
      '--action-delay <ms>',
      `time between the steps of an action cell; 0 = at once (default ${DEFAULT_ACTION_DELAY_MS})`,
      parseIntegerOption('--action-delay', 0, 3_600_000),
    )
    .addOption(
      new Option('--seeded-actions <mode>', "the seed's action cells not yet final: run on like new ones, or stay as seeded (tests)")
        .choices(SEEDED_ACTIONS)
        .default('live'),
    )
    .option('--churn <spec>', 'add, update, delete and re-run rows over time, e.g. add:5/s,update:2/s,delete:0.1/s,rerun:1/m', churnSpec)
    .option('--latency <ms[,jitter]>', 'a far-away service: every request takes MS more round trip, ± up to JITTER ms', latencySpec)
    .option(
      '--webhook-budget <n>',
      'submissions a webhook takes in its lifetime; past them it answers success and drops them (default: no limit)',
      parseIntegerOption('--webhook-budget', 0, 1e9),
    )
    .option(
      '--table-capacity <n>',
      'rows a table holds; past them a webhook answers success and drops them (default: no limit)',
      parseIntegerOption('--table-capacity', 0, 1e9),
    )
    .option('--admin', 'serve the admin routes under /_emulator on a non-loopback address too')
    .option('-v, --verbose', 'log each request on stderr')
    .addHelpText('after', HELP)
    .action(async (flags: EmulatorFlags) => {
      const { emulatorAction } = await import('./emulator-action.js');
      await emulatorAction(ctx, flags);
    });
}

function faultSpec(flag: string) {
  return (raw: string): string => {
    try {
      parseFaultSpec(raw);
      return raw;
    } catch (error) {
      if (error instanceof FaultSpecError) throw new UsageError(`${flag}: ${error.message}`);
      throw error;
    }
  };
}

function churnSpec(raw: string): string {
  try {
    parseChurnRates(raw);
    return raw;
  } catch (error) {
    if (error instanceof ChurnSpecError) throw new UsageError(`--churn: ${error.message}`);
    throw error;
  }
}

function latencySpec(raw: string): LatencySpec {
  try {
    return parseLatency(raw);
  } catch (error) {
    if (error instanceof LatencySpecError) throw new UsageError(`--latency: ${error.message}`);
    throw error;
  }
}
