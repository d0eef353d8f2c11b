import { readFile, stat } from 'node:fs/promises';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair } from 'yaml';
import { UsageError, parseDuration } from '../core/index.js';
import { COLUMN_TYPES, type ColumnType } from '../service/index.js';

// The checks file of `tds check` (docs/cli.md "Check"): YAML read node by node, so that every mistake is
// a usage error naming its line and column and what is wrong. Nothing of the file reaches SQL but the
// `sql` checks' queries (run in the sandbox of `tds sql`) and names, which are always quoted.

export type Severity = 'fail' | 'warn';

/** A span of time as the file gives it (`2h`) and in ms. */
export interface Span {
  text: string;
  ms: number;
}

export type CheckSpec =
  | { kind: 'rows'; min?: number; max?: number }
  | { kind: 'fill'; column: string; min?: number; max?: number }
  | { kind: 'unique'; column: string }
  | { kind: 'accepted'; column: string; values: string[] }
  | { kind: 'failure_rate'; column: string; max: number; since?: Span }
  | { kind: 'stuck'; column: string; maxAge: Span }
  | { kind: 'activity'; maxQuiet: Span }
  | { kind: 'fresh'; maxAge: Span }
  /** verified_at within the bound its follower recorded (_tds_tables.max_stale). */
  | { kind: 'stale' }
  | { kind: 'sql'; name: string; query: string; max: number; timeout: Span };

export type CheckKind = CheckSpec['kind'] | 'schema';

export interface DeclaredCheck {
  spec: CheckSpec;
  severity: Severity;
  /** Readable and unique within its table (`fill Email`, `sql owners`): what a run is compared by. */
  name: string;
}

export interface SchemaContract {
  fields: Array<{ label: string; type: ColumnType }>;
  onDrift: Severity;
}

export interface TableChecks {
  /** The table as the file names it: a name, an ID or a mirror table's name. */
  ref: string;
  schema?: SchemaContract;
  checks: DeclaredCheck[];
}

export { DEFAULT_CHECKS_FILE } from '../config/keys.js';

export const CHECK_KINDS = ['rows', 'fill', 'unique', 'accepted', 'failure_rate', 'stuck', 'activity', 'fresh', 'stale', 'sql'] as const;

/** Nesting deeper than the format has (tables → table → checks → check → arguments → values) is refused before it is walked. */
const MAX_DEPTH = 12;
/** More than anyone declares; a file past it is a mistake (or hostile). */
const MAX_CHECKS = 10_000;
/**
 * Far more than 10,000 checks take; refused before it is read, since the YAML parser holds about 200
 * bytes of memory per byte of a file (a 4.6 MB file took 840 MB before its checks were counted).
 */
export const MAX_CHECKS_FILE_BYTES = 1_000_000;
/** How long a `sql` check's query may run unless its `timeout` says (then it is an `error`). */
export const DEFAULT_SQL_TIMEOUT: Span = { text: '30s', ms: 30_000 };

export async function readChecksFile(path: string): Promise<TableChecks[]> {
  const cannot = ({ code }: NodeJS.ErrnoException): never => {
    const hint = code === 'ENOENT' ? 'give the file (tds check FILE), or write tds-checks.yaml here (see tds check --help)' : undefined;
    throw new UsageError(`cannot read the checks file ${path}${code ? ` (${code})` : ''}`, { hint });
  };
  const { size } = await stat(path).catch(cannot);
  if (size > MAX_CHECKS_FILE_BYTES) {
    throw new UsageError(`the checks file ${path} is ${size.toLocaleString('en-US')} bytes: more than a checks file ever is`, {
      hint: `a checks file is at most ${MAX_CHECKS_FILE_BYTES.toLocaleString('en-US')} bytes (${MAX_CHECKS.toLocaleString('en-US')} checks fit in far less)`,
    });
  }
  return parseChecks(await readFile(path, 'utf8').catch(cannot), path);
}

/** The file's tables and checks; a mistake is a UsageError `FILE:LINE:COLUMN: what is wrong`. */
export function parseChecks(text: string, path: string): TableChecks[] {
  const lines = new LineCounter();
  const at = (node: Node | Pair | null | undefined, message: string): UsageError => {
    const offset = node && 'range' in node && node.range ? node.range[0] : node && 'key' in node ? (node.key as Node)?.range?.[0] : 0;
    const { line, col } = lines.linePos(offset ?? 0);
    return new UsageError(`${path}:${line}:${col}: ${message}`, { hint: 'see `tds check --help` for the format of the checks file' });
  };
  refuseDeepNesting(text, path);
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const first = doc.errors[0];
  if (first) {
    const { line, col } = lines.linePos(first.pos[0]);
    throw new UsageError(`${path}:${line}:${col}: not valid YAML: ${first.message.split('\n')[0]}`);
  }
  const root = doc.contents;
  if (!isMap(root)) throw at(root, 'the file must be a map with `tables:` (see `tds check --help`)');
  const reader = new NodeReader(at);
  const top = reader.fields(root, 'the file', ['tables']);
  const tables = top.tables;
  if (!isMap(tables) || tables.items.length === 0) throw at(tables ?? root, '`tables` must map table names to their checks');
  let count = 0;
  return tables.items.map((pair) => {
    const ref = reader.text(pair.key as Node, 'a table name');
    const fields = reader.fields(pair.value as Node, `table "${ref}"`, ['schema', 'checks']);
    const declared = fields.checks === undefined ? [] : reader.list(fields.checks, `table "${ref}": checks`);
    count += declared.length;
    if (count > MAX_CHECKS) throw at(fields.checks, `more than ${MAX_CHECKS} checks`);
    const names = new Map<string, number>();
    const checks = declared.map((node) => {
      const check = readCheck(reader, node, ref);
      const seen = (names.get(check.name) ?? 0) + 1;
      names.set(check.name, seen);
      return seen > 1 ? { ...check, name: `${check.name} (${seen})` } : check;
    });
    const schema = fields.schema === undefined ? undefined : readSchema(reader, fields.schema, ref);
    if (!schema && checks.length === 0) throw at(pair.key as Node, `table "${ref}" declares neither a schema nor checks`);
    return { ref, ...(schema ? { schema } : {}), checks };
  });
}

/** Flow and block nesting both counted, before the YAML parser (a recursive one) sees the text. */
function refuseDeepNesting(text: string, path: string): void {
  let depth = 0;
  let line = 1;
  for (const char of text) {
    if (char === '\n') line += 1;
    else if (char === '[' || char === '{') depth += 1;
    else if (char === ']' || char === '}') depth = Math.max(0, depth - 1);
    if (depth > MAX_DEPTH) throw new UsageError(`${path}:${line}: nested deeper than a checks file ever is (${MAX_DEPTH} levels)`);
  }
  const deep = text.split('\n').findIndex((each) => /^ */.exec(each)![0].length > MAX_DEPTH * 8);
  if (deep >= 0) throw new UsageError(`${path}:${deep + 1}: indented deeper than a checks file ever is`);
}

function readSchema(reader: NodeReader, node: Node, ref: string): SchemaContract {
  const where = `table "${ref}": schema`;
  const fields = reader.fields(node, where, ['fields', 'on_drift']);
  if (!isMap(fields.fields)) throw reader.at(fields.fields ?? node, `${where}: \`fields\` must map each field's label to its type`);
  const declared = fields.fields.items.map((pair) => {
    const label = reader.text(pair.key as Node, `${where}: a field's label`);
    const type = reader.text(pair.value as Node, `${where}: the type of "${label}"`);
    if (!(COLUMN_TYPES as readonly string[]).includes(type)) {
      throw reader.at(pair.value as Node, `${where}: "${type}" is not a field type (one of ${COLUMN_TYPES.join(', ')})`);
    }
    return { label, type: type as ColumnType };
  });
  return { fields: declared, onDrift: fields.on_drift === undefined ? 'fail' : reader.severity(fields.on_drift, `${where}: on_drift`) };
}

function readCheck(reader: NodeReader, node: Node, ref: string): DeclaredCheck {
  const where = `table "${ref}": a check`;
  if (isAlias(node)) throw reader.at(node, `${where}: aliases (*name) are not read in a checks file`);
  if (!isMap(node)) throw reader.at(node, `${where} must be a map such as \`- rows: {min: 1}\``);
  const keys = node.items.map((pair) => reader.text(pair.key as Node, where));
  const kinds = keys.filter((key) => (CHECK_KINDS as readonly string[]).includes(key));
  const unknown = keys.find((key) => key !== 'severity' && !kinds.includes(key));
  if (unknown !== undefined) {
    throw reader.at(
      node.items[keys.indexOf(unknown)]!,
      `${where}: unknown key "${unknown}" (kinds: ${CHECK_KINDS.join(', ')}; and severity)`,
    );
  }
  if (kinds.length !== 1) throw reader.at(node, `${where} must have exactly one kind (${CHECK_KINDS.join(', ')}); it has ${kinds.length}`);
  const kind = kinds[0] as CheckSpec['kind'];
  const args = node.items[keys.indexOf(kind)]!.value as Node;
  const severityNode = node.items[keys.indexOf('severity')]?.value as Node | undefined;
  const severity = severityNode === undefined ? 'fail' : reader.severity(severityNode, `${where}: severity`);
  const spec = readSpec(reader, kind, args, `table "${ref}": ${kind}`);
  return { spec, severity, name: checkName(spec) };
}

/** The arguments each kind takes. */
const ARGUMENTS: Record<CheckSpec['kind'], string[]> = {
  rows: ['min', 'max'],
  fill: ['column', 'min', 'max'],
  unique: ['column'],
  accepted: ['column', 'values'],
  failure_rate: ['column', 'max', 'since'],
  stuck: ['column', 'max_age'],
  activity: ['max_quiet'],
  fresh: ['max_age'],
  stale: [],
  sql: ['name', 'query', 'max', 'timeout'],
};

function readSpec(reader: NodeReader, kind: CheckSpec['kind'], node: Node, where: string): CheckSpec {
  // `unique: Email` names its column without a map
  if (kind === 'unique' && isScalar(node)) return { kind, column: reader.text(node, `${where}: the column`) };
  const args = reader.fields(node, where, ARGUMENTS[kind]);
  const column = (): string => reader.text(reader.required(args.column, node, `${where}: column`), `${where}: column`);
  const number = (name: string, range: [number, number]): number | undefined =>
    args[name] === undefined ? undefined : reader.number(args[name], `${where}: ${name}`, range);
  const span = (name: string): Span => reader.span(reader.required(args[name], node, `${where}: ${name}`), `${where}: ${name}`);
  const share = (name: string): number | undefined =>
    args[name] === undefined ? undefined : reader.share(args[name], `${where}: ${name}`);
  const COUNT: [number, number] = [0, Number.MAX_SAFE_INTEGER];
  switch (kind) {
    case 'rows': {
      const bounds = { min: number('min', COUNT), max: number('max', COUNT) };
      if (bounds.min === undefined && bounds.max === undefined) throw reader.at(node, `${where}: give min, max or both`);
      return { kind, ...bounds } as CheckSpec;
    }
    case 'fill': {
      const bounds = { min: share('min'), max: share('max') };
      if (bounds.min === undefined && bounds.max === undefined) throw reader.at(node, `${where}: give min (0–1), max or both`);
      return { kind, column: column(), ...bounds } as CheckSpec;
    }
    case 'unique':
      return { kind, column: column() };
    case 'accepted': {
      const values = reader.list(reader.required(args.values, node, `${where}: values`), `${where}: values`);
      return { kind, column: column(), values: values.map((value) => reader.text(value, `${where}: a value`)) };
    }
    case 'failure_rate':
      return {
        kind,
        column: column(),
        max: reader.share(reader.required(args.max, node, `${where}: max`), `${where}: max`),
        ...(args.since === undefined ? {} : { since: span('since') }),
      };
    case 'stuck':
      return { kind, column: column(), maxAge: span('max_age') };
    case 'activity':
      return { kind, maxQuiet: span('max_quiet') };
    case 'fresh':
      return { kind, maxAge: span('max_age') };
    case 'stale':
      return { kind };
    case 'sql':
      return {
        kind,
        name: reader.text(reader.required(args.name, node, `${where}: name`), `${where}: name`),
        query: reader.text(reader.required(args.query, node, `${where}: query`), `${where}: query`),
        max: number('max', COUNT) ?? 0,
        timeout: args.timeout === undefined ? DEFAULT_SQL_TIMEOUT : span('timeout'),
      };
  }
}

/** The readable name of a check: its kind and what it looks at. */
export function checkName(spec: CheckSpec): string {
  if (spec.kind === 'sql') return `sql ${spec.name}`;
  return 'column' in spec ? `${spec.kind} ${spec.column}` : spec.kind;
}

/** Reads YAML nodes into values, each mistake named with its place. */
class NodeReader {
  constructor(readonly at: (node: Node | Pair | null | undefined, message: string) => UsageError) {}

  /** A map's values by key; a key not in `allowed` is a mistake. */
  fields(node: Node | null | undefined, where: string, allowed: string[]): Record<string, Node> {
    if (isAlias(node)) throw this.at(node, `${where}: aliases (*name) are not read in a checks file`);
    if (!isMap(node)) throw this.at(node, `${where} must be a map with ${allowed.join(', ')}`);
    const out: Record<string, Node> = {};
    for (const pair of node.items) {
      const key = this.text(pair.key as Node, where);
      if (!allowed.includes(key)) throw this.at(pair, `${where}: unknown key "${key}" (known: ${allowed.join(', ')})`);
      out[key] = pair.value as Node;
    }
    return out;
  }

  required(node: Node | undefined, parent: Node, what: string): Node {
    if (node === undefined || node === null) throw this.at(parent, `${what} is required`);
    return node;
  }

  list(node: Node, where: string): Node[] {
    if (isAlias(node)) throw this.at(node, `${where}: aliases (*name) are not read in a checks file`);
    if (!isSeq(node)) throw this.at(node, `${where} must be a list`);
    return node.items as Node[];
  }

  text(node: Node | null | undefined, where: string): string {
    if (isAlias(node)) throw this.at(node, `${where}: aliases (*name) are not read in a checks file`);
    if (!isScalar(node) || node.value === null || typeof node.value === 'object') throw this.at(node, `${where} must be text`);
    const text = typeof node.value === 'string' ? node.value : (node.source ?? String(node.value));
    if (text.trim() === '') throw this.at(node, `${where} is empty`);
    return text;
  }

  number(node: Node, where: string, [min, max]: [number, number]): number {
    if (!isScalar(node) || typeof node.value !== 'number' || !Number.isFinite(node.value)) throw this.at(node, `${where} must be a number`);
    if (node.value < min || node.value > max)
      throw this.at(node, `${where} must be between ${min} and ${max} (got ${node.source ?? node.value})`);
    return node.value;
  }

  /** A share: 0.05, or `5%` (0–100 %). */
  share(node: Node, where: string): number {
    if (isScalar(node) && typeof node.value === 'string') {
      const percent = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(node.value);
      if (!percent) throw this.at(node, `${where} must be a share: 0.05 or 5%`);
      const value = Number(percent[1]);
      if (value > 100) throw this.at(node, `${where} must be between 0 % and 100 % (got ${node.value.trim()})`);
      return value / 100;
    }
    if (!isScalar(node) || typeof node.value !== 'number' || !Number.isFinite(node.value))
      throw this.at(node, `${where} must be a share: 0.05 or 5%`);
    if (node.value < 0 || node.value > 1) {
      const given = node.source ?? String(node.value);
      throw this.at(node, `${where} must be a share between 0 and 1 (got ${given}; ${given} % is ${node.value / 100}, or write ${given}%)`);
    }
    return node.value;
  }

  span(node: Node, where: string): Span {
    const text = this.text(node, where);
    const ms = durationMs(text);
    if (ms === undefined) throw this.at(node, `${where}: "${text}" is not a duration of up to 100 years (30m, 2h, 7d, 2w)`);
    return { text, ms };
  }

  severity(node: Node, where: string): Severity {
    const text = this.text(node, where);
    if (text !== 'fail' && text !== 'warn') throw this.at(node, `${where} must be fail or warn (got "${text}")`);
    return text;
  }
}

/** A duration in ms; undefined for text that is not one, or one longer than tds takes (100 years). */
const durationMs = (text: string): number | undefined => {
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
};
