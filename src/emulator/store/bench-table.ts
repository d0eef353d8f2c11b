import { seededId } from './ids.js';
import type { FieldRec, TableRec } from './model.js';
import { GeneratedOverlay } from './generated-overlay.js';
import { GENERATED_PLANS, GeneratedRows, type GeneratedFieldIds, type GeneratedShape } from './generated-rows.js';
import { createPrng } from '../seed/prng.js';
import type { EmulatorState } from './state.js';

export const BENCH_WORKSPACE = 'Bench';
export const BENCH_TABLE = 'Generated';

/** Adds (or resizes) the first organization's workspace "Bench" with table "Generated" of `count` rows. */
export function addBenchTable(state: EmulatorState, count: number, now: number): TableRec {
  const org = state.orgs[0];
  if (!org) throw new Error('no organization to add the Bench workspace to');
  const spec: GeneratedShape = { count, seed: 42, startMs: Math.floor(now / 1000) * 1000 - count * 1000 - 60_000 };
  let workspace = state.workspaces.find((candidate) => candidate.orgId === org.id && candidate.name === BENCH_WORKSPACE);
  if (!workspace) {
    workspace = { id: seededId('wsp_', 14, createPrng(8_675_309)), orgId: org.id, name: BENCH_WORKSPACE, isPrivate: false };
    state.workspaces.push(workspace);
  }
  const existing = state.tables.findIndex((table) => table.workspaceId === workspace.id && table.name === BENCH_TABLE);
  if (existing >= 0) state.tables.splice(existing, 1);
  const table = generatedTable(spec, org.id, workspace.id);
  state.tables.push(table);
  return table;
}

/** The table for a spec; ids come from a fixed seed so a saved state reloads with the same ids. */
export function generatedTable(spec: GeneratedShape, orgId: string, workspaceId: string): TableRec {
  const random = createPrng(8_675_310);
  const labels: Array<[keyof GeneratedFieldIds, string, FieldRec['type']]> = [
    ['name', 'Name', 'text'],
    ['email', 'Email', 'email'],
    ['amount', 'Amount', 'number'],
    ['active', 'Active', 'boolean'],
    ['signedUp', 'Signed Up', 'date'],
    ['plan', 'Plan', 'select'],
    ['notes', 'Notes', 'text'],
  ];
  const fields: FieldRec[] = labels.map(([key, label, type]) => ({
    id: seededId('fld_', 10, random),
    name: key === 'signedUp' ? 'signed_up' : key,
    label,
    type,
    options: type === 'select' ? GENERATED_PLANS.map(([optionLabel, value]) => ({ label: optionLabel, value })) : null,
    isSystem: false,
  }));
  const ids = Object.fromEntries(labels.map(([key], i) => [key, fields[i]!.id])) as unknown as GeneratedFieldIds;
  return {
    id: seededId('tbl_', 14, random),
    orgId,
    workspaceId,
    name: BENCH_TABLE,
    emoji: ':zap:',
    fields,
    rows: new GeneratedOverlay(new GeneratedRows(spec, ids)),
  };
}
