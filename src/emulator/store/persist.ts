import { readFile, rename, writeFile } from 'node:fs/promises';
import { GeneratedOverlay, generatedTable } from './generated-overlay.js';
import type { GeneratedShape } from './generated-rows.js';
import type { FieldRec, StoredCell, StoredRow, TableRec } from './model.js';
import { plainCells } from './cell-values.js';
import { RowList } from './row-list.js';
import { EmulatorState } from './state.js';
import { StateFileError } from './state-file-error.js';

export { StateFileError };

/** Version 2 adds the changes of generated tables, their saved columns, action settings and the clock offset. */
const FORMAT = 'tds-emulator-state/2';
const FORMATS_READ = ['tds-emulator-state/1', FORMAT];

interface SavedRow {
  id: string;
  createdAt: string;
  updatedAt: string;
  createdByUserId: string | null;
  cells: Record<string, StoredCell>;
}

interface SavedTable extends Omit<TableRec, 'rows'> {
  rows?: SavedRow[];
  /** A generated table is saved as its recipe, not its rows… */
  generated?: GeneratedShape;
  /** …and what changed in it (version 2). */
  overlay?: { deleted: number[]; edited: SavedRow[]; added: SavedRow[] };
}

interface SavedState {
  format: string;
  orgs: Array<{ id: string; name: string; key: string }>;
  workspaces: EmulatorState['workspaces'];
  tables: SavedTable[];
  clockOffsetMs?: number;
  /** EmulatorState.run of the run that saved it (absent before it was kept: counted as 0). */
  run?: number;
}

export interface LoadedState {
  state: EmulatorState;
  clockOffsetMs: number;
}

/** Writes the state atomically (a temporary file renamed over the target). Paused flags are not saved. */
export async function saveState(state: EmulatorState, file: string, clockOffsetMs = 0): Promise<void> {
  const saved: SavedState = {
    format: FORMAT,
    orgs: state.orgs.map(({ id, name, key }) => ({ id, name, key })),
    workspaces: state.workspaces,
    tables: state.tables.map(saveTable),
    clockOffsetMs,
    run: state.run,
  };
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(saved)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

function saveTable({ rows, ...table }: TableRec): SavedTable {
  if (!(rows instanceof GeneratedOverlay)) return { ...table, rows: [...rows.held()].map(saveRow) };
  return {
    ...table,
    generated: rows.base.spec,
    overlay: { deleted: [...rows.deleted], edited: [...rows.edited.values()].map(saveRow), added: [...rows.added.held()].map(saveRow) },
  };
}

function saveRow(row: StoredRow): SavedRow {
  return {
    id: row.id,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
    createdByUserId: row.createdByUserId,
    cells: plainCells(row.cells),
  };
}

/** The saved state (its run one more than the saved one's), or undefined when the file does not exist. A file of another shape is an error. */
export async function loadState(file: string): Promise<LoadedState | undefined> {
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
  if (!FORMATS_READ.includes(saved?.format) || !Array.isArray(saved.tables))
    throw new StateFileError(`${file} is not an emulator state file (format ${FORMAT})`);
  const state = new EmulatorState();
  state.orgs.push(...saved.orgs.map((org) => ({ ...org, paused: false })));
  state.workspaces.push(...saved.workspaces);
  for (const table of saved.tables) state.tables.push(loadTable(table, saved.format === FORMAT));
  state.run = (typeof saved.run === 'number' && Number.isSafeInteger(saved.run) && saved.run >= 0 ? saved.run : 0) + 1;
  return { state, clockOffsetMs: typeof saved.clockOffsetMs === 'number' ? saved.clockOffsetMs : 0 };
}

function loadTable({ rows, generated, overlay, ...table }: SavedTable, current: boolean): TableRec {
  if (!generated) return { ...table, fields: table.fields as FieldRec[], rows: new RowList((rows ?? []).map(loadRow)) };
  const loaded = generatedTable(generated, table.orgId, table.workspaceId);
  if (!current || !(loaded.rows instanceof GeneratedOverlay)) return loaded;
  const changed = new GeneratedOverlay(loaded.rows.base, (overlay?.added ?? []).map(loadRow));
  for (const index of overlay?.deleted ?? []) changed.deleted.add(index);
  for (const row of (overlay?.edited ?? []).map(loadRow)) {
    const index = changed.base.indexOf(row.id);
    if (index !== undefined) changed.edited.set(index, row);
  }
  return { ...loaded, ...table, fields: table.fields as FieldRec[], rows: changed };
}

function loadRow(row: SavedRow): StoredRow {
  return { ...row, createdAt: Date.parse(row.createdAt), updatedAt: Date.parse(row.updatedAt) };
}
