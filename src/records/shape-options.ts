// What decides the shape of a row record (docs/cli.md "Row records").

export const META_KEYS = ['_id', '_createdAt', '_updatedAt', '_createdByUserId'] as const;

export const HEADER_MODES = ['label', 'name', 'id'] as const;
export type HeaderMode = (typeof HEADER_MODES)[number];

export const CELLS_MODES = ['value', 'raw'] as const;
export type CellsMode = (typeof CELLS_MODES)[number];

export interface ShapeOptions {
  /** Column keys by label (default), name or ID. */
  header: HeaderMode;
  /** Meta keys first (`--no-meta` turns them off). */
  meta: boolean;
  /** System columns kept (`--no-system` drops them unless --columns names them). */
  system: boolean;
  /** `--columns`: references (key, ID, label or name) that pick and order the columns. */
  columns?: string[];
  /** The cell's value (default) or the whole Cell object. */
  cells: CellsMode;
  /** `<key>.status` and `<key>.error` after each column that carries run statuses. */
  statusColumns: boolean;
}
