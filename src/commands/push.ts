import { JOURNAL_KEEP_DAYS, MAX_IN_FLIGHT, INPUT_FORMATS, parseInputEncoding } from '../push/options.js';
import { Command, Option } from 'commander';
import { type Context, parseIntegerOption, parseNumberOption } from '../core/options.js';
import { RATE_LIMITS, WEBHOOK_MAX_OBJECTS } from '../service/index.js';
import { HEADER_MODES } from '../records/options.js';
import type { PushOptions } from './push-action.js';
import { SUMMARIES } from './summaries.js';

const WEBHOOK_RATE = RATE_LIMITS.webhook.requests;

const HELP = `
Each request carries at most --batch-size objects and at most 1,000,000 bytes of body. Empty
objects are skipped. An object too large to send alone is rejected (listed with its record
number, and written to --rejects FILE); the run goes on and ends with exit 7.

Input is validated as it streams, so a bad record stops the push there: fix it and --resume
(the batches already sent are checked against the journal and skipped). With --validate-first,
and always with --resume, a file is read and checked in full before the first request, so a bad
row anywhere sends nothing (this costs a few seconds per million records).

Nothing is sent twice: every batch is journaled (fsynced) before and after its request, and
--resume skips the batches already taken in. A file's journal is in tds's data folder (the
summary names it; one an earlier release kept beside the file is still used); a completed push's
goes once untouched for ${JOURNAL_KEEP_DAYS} days. A 5xx, a timeout or a connection broken after the
request was sent leaves its batch *uncertain* (rows may have been added): no more batches are
started and the push ends with exit 7. Check the table first; --resume --resend-uncertain sends
the uncertain batches again, --resume alone never does. A 429 waits retry-after (10 s when
absent); a refused connection is retried; both at most --max-retries times per batch. On Ctrl-C
the batches in flight finish and are journaled (exit 130).

Global options that matter here: --timeout SECONDS (default 30; a request unanswered by then is
uncertain), --max-retries N (default 5), -v (one line per request, the webhook URL redacted).
The summary goes to stderr; --json prints it on stdout instead.

Push by key (--key FIELD[=COLUMN] --table TABLE, needs the API key): FIELD identifies a record
and fills COLUMN (default: the column labelled or named FIELD). A key that repeats an earlier
record's is not sent (--on-duplicate error stops instead); a record without its key is rejected.
An uncertain batch is settled, not left to you: once the webhook's intake window has passed, its
keys are looked up in the table and only the records not found are sent again; the push goes on.
--skip-existing leaves out records whose key the table already holds, looked up at the fewest row
requests (filter queries, a read of the table, or the mirror of --db synced first; -v and
--dry-run say which). --wait settled waits until the pushed rows' action columns have finished,
and -o FILE then writes those rows in input order, as \`tds rows --status-columns\` would.

Exit codes: 0 all records sent; 2 bad input or options; 4 webhook or table not found; 7 push
incomplete (uncertain, rejected or unsent records, fewer rows visible than sent with --wait, or
rows not settled with --wait settled); 130 interrupted. --wait: the webhook adds rows
asynchronously, so exit 7 after --wait means they were not visible yet, not that they are lost.

Examples:
  $ tds config set webhook.signups            # paste the URL; it never appears in argv
  $ tds push @signups people.csv --types infer --nest .
  $ tds push @signups people.csv --resume     # after an interruption
  $ TDS_WEBHOOK_URL=… tds push events.ndjson --json
  $ cat data.json | tds push @signups - --input-format json --journal data.journal
  $ tds push @signups --check
  $ tds push @leads leads.csv --key email --table Leads --skip-existing
  $ tds push @leads leads.csv --key email --table Leads --wait settled -o enriched.csv`;

export function pushCommand(ctx: Context): Command {
  const command = withInputOptions(
    new Command('push')
      .description(SUMMARIES.push.description)
      .argument('[webhook]', 'the webhook URL, or @NAME saved with `tds config set webhook.NAME`; default: TDS_WEBHOOK_URL')
      .argument('[file]', 'the input file, or - for stdin (the default)'),
  )
    .option(
      '--batch-size <n>',
      `objects per request, 1 to ${WEBHOOK_MAX_OBJECTS}`,
      parseIntegerOption('--batch-size', 1, WEBHOOK_MAX_OBJECTS),
      WEBHOOK_MAX_OBJECTS,
    )
    .option(
      '--concurrency <n>',
      `most requests in flight (default: what the webhook's rate × the measured round trip needs, up to ${MAX_IN_FLIGHT})`,
      parseIntegerOption('--concurrency', 1, MAX_IN_FLIGHT),
    )
    .option(
      '--rate <n>',
      `requests a second, at most ${WEBHOOK_RATE} (the webhook's limit per IP address)`,
      parseIntegerOption('--rate', 1, WEBHOOK_RATE),
      WEBHOOK_RATE,
    )
    .option('--journal <file>', "journal of sent batches (default: in tds's data folder, one per input file and webhook; none for stdin)")
    .option('--resume', 'continue the push recorded in the journal: batches already sent are skipped')
    .option(
      '--webhook <url|@name>',
      "send to this webhook instead (another of the same table, once the first has used its budget); the journal stays the first one's",
    )
    .option(
      '--resend-uncertain [batches]',
      'with --resume: send these uncertain batches again (their rows were NOT found in the table); e.g. 44-46,47; all when no list',
    )
    .option(
      '--accept-uncertain [batches]',
      'with --resume: record these uncertain batches as taken in (their rows WERE found in the table); all when no list',
    )
    .option('--rejects <file>', 'write rejected records to FILE as NDJSON: {"record": N, "reason": "…", "object": {…}}')
    .option('--check', 'only check that the webhook exists (HEAD; adds no row)')
    .option('--dry-run', 'read, validate and batch the input and print the plan; send nothing')
    .option('--validate-first', 'read and validate the whole file before the first request, so a bad row anywhere sends nothing')
    .option('--json', 'print the summary as one JSON object on stdout')
    .addHelpText('after', HELP)
    .action(async (webhookArg: string | undefined, fileArg: string | undefined, options: PushOptions, command: Command) => {
      const { pushAction } = await import('./push-action.js');
      const positional = [webhookArg, fileArg].filter((arg): arg is string => arg !== undefined);
      // `--wait FILE`: --wait takes an optional word (settled), so commander took the argument after it
      if (typeof options.wait === 'string' && !['visible', 'settled'].includes(options.wait) && positional.length < 2) {
        if (/^(@|https?:)/.test(options.wait)) positional.unshift(options.wait);
        else positional.push(options.wait);
        options.wait = true;
      }
      await pushAction(ctx, positional, options, command);
    });
  return withKeyOptions(command);
}

/** How the input is read: its format, encoding, delimiter, value types and nesting. */
function withInputOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--input-format <format>', 'input format (default: from the file extension; needed for stdin)').choices(INPUT_FORMATS),
    )
    .addOption(
      new Option('--types <mode>', 'CSV/TSV values: strings, or infer numbers and true/false')
        .choices(['strings', 'infer'])
        .default('strings'),
    )
    .option('--nest <sep>', 'build nested objects from keys containing SEP (--nest . turns address.city into {"address": {"city": …}})')
    .option('--delimiter <char>', 'CSV: the field delimiter: , ; tab | (or comma, semicolon, pipe); default: the one the header line shows')
    .addOption(
      new Option(
        '--encoding <name>',
        "the input's text encoding when it is not UTF-8: utf-16le, utf-16be, latin1 (read as cp1252) or cp1252, any case, usual aliases; default: UTF-8, or UTF-16 when the file starts with its byte-order mark",
      ).argParser(parseInputEncoding),
    )
    .option('--relax-columns', 'CSV/TSV: accept rows with fewer or more fields than the header (extra values are dropped)');
}

/** --key, --skip-existing, --wait [settled] and the -o FILE of the rows pushed. */
function withKeyOptions(command: Command): Command {
  return command
    .option('--key <field[=column]>', 'push by key: the input key that identifies a record, and the column it fills (needs --table)')
    .option('--skip-existing', 'with --key: do not send records whose key the table already holds')
    .addOption(
      new Option('--on-duplicate <action>', 'with --key: a key repeated in the input is skipped, or stops the push (exit 2)').choices([
        'skip',
        'error',
      ]),
    )
    .option('--db <file>', 'with --skip-existing: the local mirror (`tds sync`), synced first, when that costs fewer row requests')
    .option(
      '--wait [until]',
      'after sending, poll the table until the new rows are visible, or (with --key) settled: their action columns done (needs --table)',
    )
    .option('--table <table>', 'the table the webhook feeds, by ID or exact name (for --wait and --key)')
    .option(
      '--wait-timeout <seconds>',
      'how long --wait polls (default 60; 600 with --wait settled)',
      parseNumberOption('--wait-timeout', 1, 86_400),
    )
    .option('-o, --output <file>', 'with --wait settled: write the pushed rows there, in input order (format from the extension)')
    .addOption(new Option('--format <format>', 'the format of -o FILE').choices(['csv', 'tsv', 'ndjson', 'json', 'parquet']))
    .addOption(new Option('--header <kind>', 'column keys of -o FILE: labels, names or IDs (default label)').choices(HEADER_MODES));
}
