// The action of `tds demo`: the tour of demo-steps.ts, each step a real tds process against an emulator
// started here.

import { isSea } from 'node:sea';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Context, TdsError } from '../core/index.js';
import { startEmulator, type RunningEmulator } from '../emulator/index.js';
import { demoSteps, type DemoTour, type StepResult } from './demo-steps.js';

const TDS_BIN = fileURLToPath(new URL('../../bin/tds.js', import.meta.url));
/** The emulator's rate windows and the client's waits (the webhook's intake window among them) are this much shorter. */
const DEMO_SCALE = 10;

export interface DemoOptions {
  dir?: string;
  keepRunning?: boolean;
}

export async function demoAction(ctx: Context, options: DemoOptions): Promise<void> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'tds-demo-')));
  await mkdir(dir, { recursive: true });
  // a brisk organization: rows show within 0.4 s, action cells take 0.3 s a step, windows 10 times shorter (TDS_RATE_SCALE below)
  const emulator = await startEmulator({ port: 0, ingestDelayMs: 400, actionDelayMs: 300, rateScale: DEMO_SCALE });
  try {
    await runDemo(ctx, emulator, dir);
    if (options.keepRunning) await keepRunning(ctx, emulator, dir);
  } finally {
    await emulator.close();
  }
}

async function runDemo(ctx: Context, emulator: RunningEmulator, dir: string): Promise<void> {
  const { stdout, color } = ctx.io;
  const keyFile = join(dir, 'api-key');
  const webhookFile = join(dir, 'inbox-webhook-url');
  await writeFile(keyFile, `${emulator.apiKey}\n`, { mode: 0o600 });
  const tableIds = await tablesByName(emulator);
  await writeFile(webhookFile, `${inboxWebhook(emulator, tableIds)}\n`, { mode: 0o600 });
  const env = {
    ...withoutTdsSettings(process.env),
    TDS_BASE_URL: emulator.baseUrl,
    TDS_API_KEY: emulator.apiKey,
    TDS_WEBHOOK_URL: (await readFile(webhookFile, 'utf8')).trim(),
    TDS_CONFIG_DIR: join(dir, 'config'),
    // the pushes' journals and the webhook's ledger stay in the demo's folder, out of the user's data folder
    TDS_DATA_DIR: join(dir, 'data'),
    TDS_RATE_SCALE: String(DEMO_SCALE),
  };

  stdout.write(`${color.bold('tds demo')}: a local emulator of the service is running at ${emulator.baseUrl}\n`);
  stdout.write('with demo data. Every step below is a real command, shown as you would type it.\n\n');
  stdout.write(color.dim('# point tds at the emulator (secrets stay in files, out of your shell history)\n'));
  stdout.write(`$ export TDS_BASE_URL=${emulator.baseUrl}\n`);
  stdout.write(`$ export TDS_API_KEY="$(cat ${keyFile})"\n`);
  stdout.write(`$ export TDS_WEBHOOK_URL="$(cat ${webhookFile})"\n`);
  stdout.write(`$ cd ${dir}\n\n`);

  const tour: DemoTour = { dir, origin: emulator.baseUrl.replace(/\/v1$/, ''), tableIds };
  const started = performance.now();
  let steps = 0;
  for (const step of demoSteps(tour)) {
    steps += step.args ? 1 : 0;
    if (ctx.signal.aborted) throw ctx.signal.reason;
    stdout.write(`${color.dim(`# ${step.title}`)}\n${color.cyan(`$ ${step.display}`)}\n`);
    if (step.waits) stdout.write(`${color.dim(`# waiting for ${step.waits}…`)}\n`);
    if (step.prepare) await step.prepare();
    const result = step.run ? await step.run() : await runStep(step.args ?? [], env, dir);
    stdout.write(step.show ? await step.show(result) : result.stdout);
    if (result.stderr.trim() && step.showStderr !== false) stdout.write(color.dim(result.stderr));
    stdout.write('\n');
    if (result.code !== (step.expectCode ?? 0)) {
      throw new TdsError('UNEXPECTED', `demo step "${step.title}" failed with exit ${result.code}`, {
        hint: 'run the command above yourself to see more, or report it as a bug',
      });
    }
  }

  const seconds = Math.round((performance.now() - started) / 1000);
  // each step is a tds process of its own: on a busy machine, starting them is most of the time
  stdout.write(color.dim(`# the tour took ${seconds} s (${steps} commands, each a tds process started afresh)\n\n`));
  stdout.write(`${color.bold('Next: your own organization')}
  tds config set base-url https://<your service host>/v1
  tds config set api-key            # paste the key when asked (never on the command line)
  tds auth check                    # one request that says whether it all works
  tds tables                        # and off you go; tds --help lists every command
Files of this demo are in ${dir}.
`);
}

/** The demo organization's tables, ID by name (its names are unique in the first organization but for "Contacts"). */
async function tablesByName(emulator: RunningEmulator): Promise<Record<string, string>> {
  const response = await fetch(`${emulator.baseUrl}/tables`, { headers: { authorization: `Bearer ${emulator.apiKey}` } });
  const { tables } = (await response.json()) as { tables: Array<{ id: string; name: string }> };
  return Object.fromEntries(tables.map((table) => [table.name, table.id]));
}

function inboxWebhook(emulator: RunningEmulator, tableIds: Record<string, string>): string {
  const url = tableIds.Inbox && emulator.webhooks[tableIds.Inbox];
  if (!url) throw new TdsError('UNEXPECTED', 'the demo data has no "Inbox" webhook table');
  return url;
}

/** The user's own tds settings (a profile, a mirror in TDS_DB, a saved webhook) stay out of the demo. */
function withoutTdsSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('TDS_')));
}

function runStep(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<StepResult> {
  return new Promise((resolve, reject) => {
    // the single executable is tds itself; under node, tds is bin/tds.js
    const command = isSea() ? args : [TDS_BIN, ...args];
    const child = spawn(process.execPath, command, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function keepRunning(ctx: Context, emulator: RunningEmulator, dir: string): Promise<void> {
  ctx.io.stderr.write(`The emulator keeps running at ${emulator.baseUrl}. From another terminal:
  export TDS_BASE_URL=${emulator.baseUrl}
  export TDS_API_KEY="$(cat ${join(dir, 'api-key')})"
  tds tables
Press Ctrl-C to stop it.
`);
  await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
}
