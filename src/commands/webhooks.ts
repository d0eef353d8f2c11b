import { Command } from 'commander';
import type { Context } from '../core/options.js';
import type { LedgerCount } from '../push/ledger/index.js';
import { SUMMARIES } from './summaries.js';

// `tds webhooks`: each webhook tds has pushed to, with what it took and what is left of its budget (issue 45).

const HELP = `
A webhook takes a budget of submissions in its lifetime (webhook-budget, 50,000 in production; deleting
rows gives none back), then drops what it is sent while still answering success. The webhooks saved in
the profile come first (NAME: @NAME and its place in the list a push fills in order), then any other
webhook tds pushed to. tds counts every
submission a push or the MCP push_records tool makes, per webhook, in its data folder (TDS_DATA_DIR, else
the platform's data folder), by a hash of the webhook's URL, never the URL. Uncertain requests (a 5xx, a
timeout, a push killed mid-request) count as used until a push by key finds their records in the table.

Examples:
  $ tds webhooks
  $ tds webhooks --json | jq '.[] | select(.left < 1000)'
  $ tds config set webhook-budget off          # a service without the limit
`;

export function webhooksCommand(ctx: Context): Command {
  return new Command('webhooks')
    .description(SUMMARIES.webhooks.description)
    .option('--json', 'print them as a JSON array on stdout')
    .addHelpText('after', HELP)
    .action(async (options: { json?: boolean }, command: Command) => {
      const [{ loadSettings }, { renderTable, tableFit }] = await Promise.all([
        import('../config/index.js'),
        import('../output/index.js').then((output) => output.tableOutput()),
      ]);
      const settings = await loadSettings(ctx, command);
      const budget = settings.webhookBudget ?? null;
      const known = await knownWebhooks(ctx, (command.optsWithGlobals() as { profile?: string }).profile);
      const webhooks = known.map((known) => ({
        name: known.name,
        webhook: known.displayUrl,
        fingerprint: known.fingerprint.slice(0, 16),
        table: known.table ?? null,
        submissions: known.count.submissions,
        uncertain: known.count.uncertain,
        budget,
        left: budget === null ? null : Math.max(0, budget - known.count.submissions - known.count.uncertain),
        firstUse: known.count.firstUse ?? null,
        lastUse: known.count.lastUse ?? null,
      }));
      if (options.json) return void ctx.io.stdout.write(`${JSON.stringify(webhooks)}\n`);
      if (webhooks.length === 0) return void ctx.io.stderr.write('no webhook pushed to yet (tds counts the pushes it makes)\n');
      const n = (value: number | null): string => (value === null ? 'off' : value.toLocaleString('en-US'));
      const day = (iso: string | null): string => (iso ? iso.slice(0, 16).replace('T', ' ') : '');
      const text = renderTable(
        webhooks,
        [
          { header: 'NAME', value: (item) => item.name ?? '' },
          { header: 'WEBHOOK', value: (item) => item.webhook, shrink: true },
          { header: 'TABLE', value: (item) => item.table ?? '', shrink: true },
          { header: 'SUBMISSIONS', value: (item) => n(item.submissions), align: 'right' },
          { header: 'UNCERTAIN', value: (item) => n(item.uncertain), align: 'right' },
          { header: 'LEFT', value: (item) => n(item.left), align: 'right' },
          { header: 'FIRST USE', value: (item) => day(item.firstUse) },
          { header: 'LAST USE', value: (item) => day(item.lastUse) },
        ],
        tableFit(ctx.io, false),
      );
      ctx.io.stdout.write(`${text}\n`);
    });
}

/** The webhooks saved in the profile first, each in the order a push fills its list; then the others tds pushed to. */
async function knownWebhooks(
  ctx: Context,
  profile: string | undefined,
): Promise<Array<{ name: string | null; displayUrl: string; fingerprint: string; table?: string; count: LedgerCount }>> {
  const [{ savedWebhooks }, { dataDir, listLedgers }, { webhookTarget }] = await Promise.all([
    import('../config/index.js'),
    import('../push/ledger/index.js'),
    import('../push/index.js'),
  ]);
  const saved = (await savedWebhooks(ctx, profile)).flatMap(({ name, urls }) =>
    urls.map((url, i) => {
      const target = webhookTarget(url);
      return { name: `@${name} ${i + 1}/${urls.length}`, fingerprint: target.fingerprint, displayUrl: target.displayUrl };
    }),
  );
  const ledgers = await listLedgers(dataDir(ctx.io.env));
  const unused: { count: LedgerCount } = { count: { submissions: 0, uncertain: 0 } };
  return [
    ...saved.map((webhook) => ({ ...(ledgers.find((ledger) => ledger.fingerprint === webhook.fingerprint) ?? unused), ...webhook })),
    ...ledgers
      .filter((ledger) => !saved.some((webhook) => webhook.fingerprint === ledger.fingerprint))
      .map((ledger) => ({ ...ledger, name: null })),
  ];
}
