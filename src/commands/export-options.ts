import { Option, type Command } from 'commander';
import { parseIntegerOption } from '../core/number-option.js';
import { SPREADSHEET_CELL_MAX_CHARS } from '../export/export-flags.js';
import { EXPORT_FORMATS } from '../output/format.js';
import { CELLS_MODES, HEADER_MODES } from '../records/shape-options.js';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, PAGE_LIMIT_MIN, SEARCH_MAX_CHARS } from '../service/index.js';

/** Output, shaping, paging and resume flags shared by rows and query. */
export function addExportOptions(command: Command): Command {
  return command
    .addOption(new Option('--format <format>', 'output format (parquet: typed columns, -o FILE only; default csv)').choices(EXPORT_FORMATS))
    .option('-o, --output <file>', 'write data to FILE (atomically, resumable); the format follows its extension, .parquet included')
    .option('-q, --search <text>', `case-insensitive text search across the cells (at most ${SEARCH_MAX_CHARS} characters)`)
    .option('-n, --limit <n>', 'stop after N rows in all', parseIntegerOption('--limit', 1, Number.MAX_SAFE_INTEGER))
    .option(
      '--page-size <n>',
      `rows per request, ${PAGE_LIMIT_MIN}-${PAGE_LIMIT_MAX}`,
      parseIntegerOption('--page-size', PAGE_LIMIT_MIN, PAGE_LIMIT_MAX),
      PAGE_LIMIT_DEFAULT,
    )
    .addOption(new Option('--header <kind>', 'column keys: labels, names or IDs').choices(HEADER_MODES).default('label'))
    .option('--columns <list>', 'only these columns, in this order: labels, names, IDs or keys, comma-separated ("quote,d" if needed)')
    .option('--no-meta', 'leave out _id, _createdAt, _updatedAt and _createdByUserId')
    .option('--no-system', 'leave out the columns the service adds itself')
    .addOption(new Option('--cells <kind>', 'each cell as its value, or as the whole Cell object').choices(CELLS_MODES).default('value'))
    .option(
      '--status-columns',
      'add <key>.status and <key>.error after each column that carries a run status or error (parquet: always, for action columns)',
    )
    .option('--join <sep>', 'CSV/TSV: join arrays of plain values with SEP instead of writing JSON')
    .option('--bom', 'CSV/TSV: start with a UTF-8 byte order mark')
    .option(
      '--excel',
      `CSV/TSV for spreadsheet programs: BOM, CRLF, cells cut at ${SPREADSHEET_CELL_MAX_CHARS.toLocaleString('en-US')} characters, formula guard`,
    )
    .option('--safe-formulas', "CSV/TSV: a text cell starting with = + - @ tab or CR gets a leading '")
    .addOption(
      new Option('--on-truncated <action>', 'cells the service cut at 200 characters: warn at the end, or exit 8')
        .choices(['warn', 'error'])
        .default('warn'),
    )
    .option('--resume', 'continue the interrupted export to -o FILE from its checkpoint')
    .option('--restart', 'drop the checkpoint of an interrupted export to -o FILE and start over');
}
