import { readFile, rename, writeFile } from 'node:fs/promises';
import { generatedTable } from './bench-table.js';
import { GeneratedRows, type GeneratedSpec } from './generated-rows.js';
import type { FieldRec, StoredCell, TableRec } from './model.js';
import { RowList } from './row-list.js';
import { EmulatorState } from './state.js';

const FORMAT = 'tds-emulator-state/1';

/** The --data file exists but cannot be used. */
export class StateFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateFileError';
  }
}

interface SavedRow {
  id: string;
  createdAt: string;
  updatedAt: string;
  createdByUserId: string | null;
  cells: Record<string, StoredCell>;
}

interface SavedTable extends Omit<TableRec, 'rows'> {
  rows?: SavedRow[];
  /** A generated table is saved as its recipe, not its rows. */
  generated?: GeneratedSpec;
}

interface SavedState {
  format: typeof FORMAT;
  orgs: Array<{ id: string; name: string; key: string }>;
  workspaces: EmulatorState['workspaces'];
  tables: SavedTable[];
}

/** Writes the state atomically (a temporary file renamed over the target). Paused flags are not saved. */
export async function saveState(state: EmulatorState, file: string): Promise<void> {
  const saved: SavedState = {
    format: FORMAT,
    orgs: state.orgs.map(({ id, name, key }) => ({ id, name, key })),
    workspaces: state.workspaces,
    tables: state.tables.map(({ rows, ...table }) => {
      if (rows instanceof GeneratedRows) return { ...table, generated: rows.spec };
      const list = rows as RowList;
      return {
        ...table,
        rows: list.all().map((row) => ({
          ...row,
          createdAt: new Date(row.createdAt).toISOString(),
          updatedAt: new Date(row.updatedAt).toISOString(),
        })),
      };
    }),
  };
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(saved)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/** The saved state, or undefined when the file does not exist. A file of another shape is an error. */
export async function loadState(file: string): Promise<EmulatorState | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let saved: SavedState;
  try {
    saved = JSON.parse(text) as SavedState;
  } catch {
    throw new StateFileError(`${file} is not valid JSON`);
  }
  if (saved?.format !== FORMAT || !Array.isArray(saved.tables))
    throw new StateFileError(`${file} is not an emulator state file (format ${FORMAT})`);
  const state = new EmulatorState();
  state.orgs.push(...saved.orgs.map((org) => ({ ...org, paused: false })));
  state.workspaces.push(...saved.workspaces);
  for (const { rows, generated, ...table } of saved.tables) {
    if (generated) {
      state.tables.push(generatedTable(generated, table.orgId, table.workspaceId));
      continue;
    }
    const stored = (rows ?? []).map((row) => ({ ...row, createdAt: Date.parse(row.createdAt), updatedAt: Date.parse(row.updatedAt) }));
    state.tables.push({ ...table, fields: table.fields as FieldRec[], rows: new RowList(stored) });
  }
  return state;
}
