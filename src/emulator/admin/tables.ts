import { allowOnly, nonEmptyString, readJsonObject } from './body.js';
import { buildField, parseFieldInput, resolveAction } from '../store/field-input.js';
import { badRequest } from '../http/http-io.js';
import { freshId } from '../store/ids.js';
import type { FieldRec, TableRec, WorkspaceRec } from '../store/model.js';
import { publicField } from '../read/render-row.js';
import { RowList } from '../store/row-list.js';
import { WEBHOOK_PATH_PREFIX } from '../http/secrets.js';
import { ok, type Reply, type RouteCall } from '../http/server-deps.js';
import type { EmulatorState } from '../store/state.js';

const EMOJI = /^:[a-z0-9_+-]+:$/;

/** POST /_emulator/tables {workspace, name, emoji?, webhook?, fields} -> 201 {table, fields, webhookUrl?} */
export async function createTable({ deps, req }: RouteCall): Promise<Reply> {
  const body = await readJsonObject(req);
  allowOnly(body, 'body', ['workspace', 'name', 'emoji', 'webhook', 'fields']);
  const workspace = findWorkspace(deps.state, nonEmptyString(body.workspace, 'body.workspace'));
  const name = nonEmptyString(body.name, 'body.name');
  if (body.emoji !== undefined && body.emoji !== null && (typeof body.emoji !== 'string' || !EMOJI.test(body.emoji))) {
    throw badRequest('body.emoji must be an emoji shortcode such as ":rocket:" (or null)');
  }
  if (body.webhook !== undefined && typeof body.webhook !== 'boolean') throw badRequest('body.webhook must be true or false');
  const webhook = body.webhook === true;
  if (!Array.isArray(body.fields)) throw badRequest('body.fields is required: an array of FieldDefinition {label, type, …}');
  const specs = body.fields.map((raw: unknown, i) => parseFieldInput(raw, `body.fields[${i}]`, webhook));

  const fields: FieldRec[] = webhook
    ? [{ id: freshId('fld_', 10), name: 'payload', label: 'Payload', type: 'webhook', options: null, isSystem: false }]
    : [];
  specs.forEach((spec, i) => fields.push(buildField(spec, freshId('fld_', 10), fields, `body.fields[${i}]`)));
  const offset = webhook ? 1 : 0;
  specs.forEach((spec, i) => {
    const field = fields[i + offset]!;
    if (spec.action) field.action = resolveAction(field, spec.action, fields, `body.fields[${i}].action`);
  });

  const table: TableRec = {
    id: freshId('tbl_', 14),
    orgId: workspace.orgId,
    workspaceId: workspace.id,
    name,
    emoji: typeof body.emoji === 'string' ? body.emoji : null,
    fields,
    rows: new RowList(),
    ...(webhook ? { webhookId: freshId('', 43) } : {}),
  };
  deps.state.tables.push(table);
  const reply: Record<string, unknown> = { table: deps.state.describeTable(table), fields: fields.map(publicField) };
  if (table.webhookId !== undefined) {
    deps.secrets.add(table.webhookId);
    reply.webhookUrl = deps.webhooks[table.id] = `${deps.origin()}${WEBHOOK_PATH_PREFIX}${table.webhookId}`;
  }
  return ok(reply, 201);
}

/** A workspace by ID, else by name (of any organization; a name two organizations use is a 400). */
function findWorkspace(state: EmulatorState, ref: string): WorkspaceRec {
  const byId = state.workspaces.find((workspace) => workspace.id === ref);
  if (byId) return byId;
  const byName = state.workspaces.filter((workspace) => workspace.name === ref);
  if (byName.length > 1) throw badRequest(`body.workspace: "${ref}" names several workspaces: ${byName.map((w) => w.id).join(', ')}`);
  if (!byName[0]) throw badRequest(`body.workspace: no workspace "${ref}" (give a workspace ID or name)`);
  return byName[0];
}
