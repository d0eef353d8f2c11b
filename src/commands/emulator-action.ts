import { type Context, TdsError, UsageError } from '../core/index.js';
import {
  ChurnSpecError,
  isLoopbackHost,
  StateFileError,
  startEmulator,
  type EmulatorOptions,
  type LatencySpec,
  type SeededActions,
  type SeedName,
  type RunningEmulator,
} from '../emulator/index.js';

// The action of `tds emulator`: the service on loopback until Ctrl-C.

export interface EmulatorFlags {
  host: string;
  port: number;
  seed: SeedName;
  seededActions: SeededActions;
  data?: string;
  rows?: number;
  paused?: boolean;
  rateLimits: boolean;
  rateScale?: number;
  ingestDelay?: number;
  faults?: string;
  readFaults?: string;
  webhookFaults?: string;
  faultSeed?: number;
  actionDelay?: number;
  churn?: string;
  admin?: boolean;
  latency?: LatencySpec;
  webhookBudget?: number;
  tableCapacity?: number;
}

/** `tds emulator`: runs until Ctrl-C or SIGTERM, then saves --data. */
export async function emulatorAction(ctx: Context, flags: EmulatorFlags): Promise<void> {
  if (!isLoopbackHost(flags.host)) {
    const admin = flags.admin ? ', and --admin lets them change its data' : '';
    ctx.io.stderr.write(
      `tds: warning: binding ${flags.host}, not a loopback address: other machines can reach the emulator and its demo keys${admin}\n`,
    );
  }
  const options: EmulatorOptions = {
    host: flags.host,
    port: flags.port,
    seed: flags.seed,
    seededActions: flags.seededActions,
    rateLimits: flags.rateLimits,
    log: (line) => ctx.verbose(line),
    ...(flags.data !== undefined ? { dataFile: flags.data } : {}),
    ...(flags.rows !== undefined ? { rows: flags.rows } : {}),
    ...(flags.paused ? { paused: true } : {}),
    ...(flags.rateScale !== undefined ? { rateScale: flags.rateScale } : {}),
    ...(flags.ingestDelay !== undefined ? { ingestDelayMs: flags.ingestDelay } : {}),
    ...(flags.faultSeed !== undefined ? { faultSeed: flags.faultSeed } : {}),
    ...(flags.actionDelay !== undefined ? { actionDelayMs: flags.actionDelay } : {}),
    ...(flags.churn !== undefined ? { churn: flags.churn } : {}),
    ...(flags.admin ? { admin: true } : {}),
    ...(flags.latency ? { latency: flags.latency } : {}),
    ...(flags.webhookBudget !== undefined ? { webhookBudget: flags.webhookBudget } : {}),
    ...(flags.tableCapacity !== undefined ? { tableCapacity: flags.tableCapacity } : {}),
  };
  const readFaults = flags.readFaults ?? flags.faults;
  const webhookFaults = flags.webhookFaults ?? flags.faults;
  if (readFaults !== undefined) options.readFaults = readFaults;
  if (webhookFaults !== undefined) options.webhookFaults = webhookFaults;

  const emulator = await startEmulator(options).catch((error: NodeJS.ErrnoException) => {
    if (error instanceof StateFileError) throw new UsageError(`--data: ${error.message}`);
    if (error instanceof ChurnSpecError) throw new UsageError(`--churn: ${error.message}`);
    if (error.code === 'EADDRINUSE')
      throw new UsageError(`port ${flags.port} is in use`, { hint: 'pick another --port, or --port 0 for a free one' });
    if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') throw new UsageError(`cannot bind ${flags.host}: ${error.code}`);
    throw new TdsError('UNEXPECTED', `the emulator could not start: ${error.message}`, { cause: error });
  });
  const { baseUrl, apiKey, webhooks } = emulator;
  // a program reads the JSON line (always the first line when stdout is not a terminal); a person, what to do with it
  ctx.io.stdout.write(
    ctx.io.stdoutIsTTY ? readyText(baseUrl, apiKey, emulator.webhookTables()) : `${JSON.stringify({ baseUrl, apiKey, webhooks })}\n`,
  );

  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    process.once('SIGTERM', () => resolve());
  });
  await emulator.close();
}

/**
 * The ready message for a person: where it listens, the lines to paste in another terminal, each table's webhook
 * (the emulator's own, which every push needs), how to stop it.
 */
function readyText(baseUrl: string, apiKey: string, webhooks: ReturnType<RunningEmulator['webhookTables']>): string {
  const width = Math.max(0, ...webhooks.map(({ workspace, table }) => `${workspace} / ${table}`.length));
  const hooks = webhooks.map(({ workspace, table, url }) => `  ${`${workspace} / ${table}`.padEnd(width)}  ${url}`);
  return [
    `The emulator listens on ${baseUrl}`,
    '',
    'In another terminal:',
    `  export TDS_BASE_URL=${baseUrl}`,
    `  export TDS_API_KEY=${apiKey}`,
    '  tds tables',
    ...(hooks.length > 0 ? ['', 'Webhooks (tds push URL FILE, or save one: tds config set webhook.NAME):', ...hooks] : []),
    '',
    'Stop it with Ctrl-C. (Piped or redirected, stdout gets one JSON line instead: baseUrl, apiKey, webhooks.)',
    '',
  ].join('\n');
}
