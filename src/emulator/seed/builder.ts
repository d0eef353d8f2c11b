import type { ColumnType, FieldOption } from '../../service/index.js';
import { snakeCase } from '../admin/admin-input.js';
import { seededId, type FieldRec, type OrgRec, type StoredCell, type StoredRow, type TableRec, type WorkspaceRec } from '../store/model.js';
import { createPrng, type Prng } from './prng.js';
import { RowList } from '../store/row-list.js';
import type { EmulatorState } from '../store/state.js';

export const DAY_MS = 86_400_000;

export interface FieldDefinition {
  label: string;
  type: ColumnType;
  /** Internal name; defaults to the label in snake case. */
  name?: string;
  options?: FieldOption[];
  isSystem?: boolean;
  mapKey?: string;
  previewOnly?: boolean;
}

/** A cell with more than a value (status, error). Plain values in a row spec become `{value}`. */
export class FullCell {
  constructor(readonly cell: StoredCell) {}
}

export type SeedRow = Record<string, unknown>;

export interface SeedTable {
  table: TableRec;
  rows: RowList;
  /** Field by internal name. */
  field(name: string): FieldRec;
}

/** Deterministic ids and dates for seeds: one PRNG, one clock reading. */
/** A seeded table's name, emoji, and whether it has a webhook. */
export interface SeedTableHead {
  name: string;
  emoji: string | null;
  webhook?: boolean;
}

export class SeedBuilder {
  readonly random: Prng;

  constructor(
    readonly state: EmulatorState,
    seed: number,
    readonly now: number,
  ) {
    this.random = createPrng(seed);
  }

  id(prefix: string, length = 14): string {
    return seededId(prefix, length, this.random);
  }

  org(name: string, key: string): OrgRec {
    const org: OrgRec = { id: this.id('org_'), name, key, paused: false };
    this.state.orgs.push(org);
    return org;
  }

  workspace(org: OrgRec, name: string, isPrivate = false): WorkspaceRec {
    const workspace: WorkspaceRec = { id: this.id('wsp_'), orgId: org.id, name, isPrivate };
    this.state.workspaces.push(workspace);
    return workspace;
  }

  /** A table of `workspace` with fields of `specs` (`webhook`: it has a webhook URL). */
  table(workspace: WorkspaceRec, { name, emoji, webhook = false }: SeedTableHead, specs: FieldDefinition[]): SeedTable {
    const fields = specs.map((spec) => this.field(spec));
    const rows = new RowList();
    const table: TableRec = {
      id: this.id('tbl_'),
      orgId: workspace.orgId,
      workspaceId: workspace.id,
      name,
      emoji,
      fields,
      rows,
      ...(webhook ? { webhookId: this.id('', 43) } : {}),
    };
    this.state.tables.push(table);
    return {
      table,
      rows,
      field: (fieldName) => {
        const found = fields.find((field) => field.name === fieldName);
        if (!found) throw new Error(`seed: no field ${fieldName} in ${name}`);
        return found;
      },
    };
  }

  /**
   * Adds rows created over the past `spanDays`, oldest first. Row specs are keyed by field name; empty values
   * (undefined, null, '') leave the cell out. A system "created_at" field gets the creation date.
   */
  addRows(target: SeedTable, specs: SeedRow[], spanDays = 400, users: string[] = []): void {
    const rows: StoredRow[] = specs.map((spec, index) => {
      const createdAt = Math.floor(this.now - ((specs.length - index) / specs.length) * spanDays * DAY_MS - this.random() * 3_600_000);
      const editedAfter = this.random() * 3 * DAY_MS;
      const updatedAt = this.random() < 0.5 ? createdAt : createdAt + Math.floor(editedAfter);
      const cells: Record<string, StoredCell> = {};
      for (const [name, value] of Object.entries(spec)) {
        if (value instanceof FullCell) cells[target.field(name).id] = value.cell;
        else if (value !== undefined && value !== null && value !== '') cells[target.field(name).id] = { value };
      }
      const system = target.table.fields.find((field) => field.isSystem && field.type === 'date');
      if (system) cells[system.id] = { value: new Date(createdAt).toISOString() };
      const createdByUserId = users.length > 0 && this.random() < 0.8 ? users[Math.floor(this.random() * users.length)]! : null;
      return { id: this.id('row_', 16), createdAt, updatedAt: Math.min(updatedAt, this.now), createdByUserId, cells };
    });
    target.rows.append(rows);
  }

  /**
   * Adds columns after a table's own, with ids from their own seed `salt`, so the ids of everything seeded
   * after the table stay as they were before these columns existed.
   */
  addFields(target: SeedTable, specs: FieldDefinition[], salt: number): FieldRec[] {
    const random = createPrng(salt);
    const fields = specs.map((spec) => this.field(spec, seededId('fld_', 10, random)));
    target.table.fields.push(...fields);
    return fields;
  }

  private field(spec: FieldDefinition, id = this.id('fld_', 10)): FieldRec {
    return {
      id,
      name: spec.name ?? snakeCase(spec.label),
      label: spec.label,
      type: spec.type,
      options: spec.options ?? (spec.type === 'select' || spec.type === 'multi_select' ? [] : null),
      isSystem: spec.isSystem ?? false,
      ...(spec.mapKey !== undefined ? { mapKey: spec.mapKey } : {}),
      ...(spec.previewOnly ? { previewOnly: true } : {}),
      ...(spec.type === 'action' ? { runsAction: true } : {}),
    };
  }
}

export function options(...pairs: Array<[label: string, value: string]>): FieldOption[] {
  return pairs.map(([label, value]) => ({ label, value }));
}
