import type { Command } from 'commander';
import type { Context } from '../core/context.js';
import { loadSettings } from '../config/settings.js';
import { withClient } from './client.js';
import { resolveTable } from '../http/resolve-table.js';
import { chooseExportFormat, type ExportFormat } from '../output/format.js';
import { writeListingAs } from './listing-output.js';
import type { Field } from '../service/index.js';

const SHARED_MARK = ' *';

export async function schemaAction(
  ctx: Context,
  ref: string,
  options: { format?: ExportFormat; output?: string },
  cmd: Command,
): Promise<void> {
  const settings = await loadSettings(ctx, cmd);
  const format = chooseExportFormat({ ...options, fallback: settings.defaultFormat ?? 'table' });
  const { fields } = await withClient(ctx, settings, async (client) => client.schema((await resolveTable(client, ref)).id));
  const shared = sharedLabels(fields);
  await writeListingAs<Field>(ctx, fields, {
    format,
    output: options.output,
    parquetTypes: { id: 'VARCHAR', name: 'VARCHAR', label: 'VARCHAR', type: 'VARCHAR', options: 'JSON', isSystem: 'BOOLEAN' },
    fields: ['id', 'name', 'label', 'type', 'options', 'isSystem'],
    columns: [
      { header: 'ID', value: (f) => f.id, style: (c, t) => c.dim(t) },
      { header: 'LABEL', value: (f) => (shared.has(f.label) ? `${f.label}${SHARED_MARK}` : f.label), shrink: true },
      { header: 'NAME', value: (f) => f.name, shrink: true },
      { header: 'TYPE', value: (f) => f.type },
      { header: 'OPTIONS', value: (f) => f.options?.map((o) => o.label).join(', '), shrink: true },
      { header: 'SYSTEM', value: (f) => (f.isSystem ? 'yes' : '') },
    ],
    emptyMessage: 'this table has no columns',
    footer: () => (shared.size ? '* label shared by several columns: refer to them by ID or name' : undefined),
  });
}

function sharedLabels(fields: Field[]): Set<string> {
  const counts = new Map<string, number>();
  for (const field of fields) counts.set(field.label, (counts.get(field.label) ?? 0) + 1);
  return new Set([...counts].filter(([, count]) => count > 1).map(([label]) => label));
}
