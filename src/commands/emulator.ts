import { Command, Option } from 'commander';
import type { Context } from '../core/context.js';
import { UsageError } from '../core/errors.js';
import { parseIntegerOption, parseNumberOption } from '../core/number-option.js';
import { DEFAULT_HOST, DEFAULT_INGEST_DELAY_MS, DEFAULT_PORT } from '../emulator/defaults.js';
import { FaultSpecError, parseFaultSpec } from '../emulator/faults.js';
import { SEED_NAMES } from '../emulator/seed/seed-names.js';
import type { EmulatorFlags } from './emulator-action.js';

const HELP = `
Prints one JSON line on stdout when ready: {"baseUrl", "apiKey", "webhooks": {tableId: url}};
requests are logged on stderr with --verbose (keys and webhook ids redacted). Stops on Ctrl-C or
SIGTERM, saving --data.

Fault specs (for reliability tests): a comma list of KIND:P (probability 0..1), KIND@N or KIND@N-M
(the N-th to M-th request of that surface, counting from 1). Kinds: 500 502 503 429 429bare reset stall.
On the webhook, 500/502/503/reset/stall come after the objects were accepted (rows may have been added).

Emulator-only routes (not part of the service, no key): GET /_emulator/requests (the request log as
JSON), POST /_emulator/flush (make pending webhook rows visible now).

Examples:
  $ tds emulator                                   # demo data on http://127.0.0.1:8787/v1
  $ tds emulator --port 0 --seed empty             # a free port, an organization without data
  $ tds emulator --data state.json                 # keep pushed rows across restarts
  $ tds emulator --rows 1000000 --no-rate-limits   # a 1,000,000-row table "Generated" for benchmarks
  $ tds emulator --rate-scale 100 --ingest-delay 50 --faults '500:0.1,reset@3' --fault-seed 7
`;

export function emulatorCommand(ctx: Context): Command {
  return new Command('emulator')
    .description('run the local emulator of the service (for offline use and tests)')
    .option('--host <host>', 'address to bind', DEFAULT_HOST)
    .option('--port <port>', 'port to listen on (0 = a free port)', parseIntegerOption('--port', 0, 65_535), DEFAULT_PORT)
    .addOption(new Option('--seed <name>', 'initial data').choices(SEED_NAMES).default('demo'))
    .option('--data <file>', 'load state from FILE if it exists; save it there on exit')
    .option('--rows <n>', 'add workspace "Bench" with table "Generated" of N rows', parseIntegerOption('--rows', 0, 100_000_000))
    .option('--paused', "the first organization's subscription is paused (402 on key endpoints)")
    .option('--no-rate-limits', 'turn every rate limit off')
    .option(
      '--rate-scale <x>',
      'run rate-limit windows X times faster (retry-after stays in service seconds)',
      parseNumberOption('--rate-scale', 1e-6, 1e6),
    )
    .option(
      '--ingest-delay <ms>',
      `quiet delay before webhook rows show (default ${DEFAULT_INGEST_DELAY_MS})`,
      parseIntegerOption('--ingest-delay', 0, 3_600_000),
    )
    .option('--faults <spec>', 'fault spec for both the key endpoints and the webhook', faultSpec('--faults'))
    .option('--read-faults <spec>', 'fault spec for the key endpoints (overrides --faults)', faultSpec('--read-faults'))
    .option('--webhook-faults <spec>', 'fault spec for the webhook (overrides --faults)', faultSpec('--webhook-faults'))
    .option('--fault-seed <n>', 'seed of the fault draws (default 1)', parseIntegerOption('--fault-seed', 0, 2 ** 32 - 1))
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
