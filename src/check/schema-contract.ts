import type { StoredField } from '../mirror/index.js';
import { judged, type CheckResult } from './check-result.js';
import type { SchemaContract } from './checks-file.js';

// The schema contract of a table: the fields the checks file declares (by label, with their types)
// against the fields the mirror has. The sync applies every change of the service's schema to the
// mirror (a column added, renamed, kept as removed, converted); the contract is what tells a person
// that the table no longer has the shape a pipeline reads. Each drift is named:
//   added       a field the contract does not declare
//   removed     a declared field the table no longer has
//   relabelled  a declared label now on no field, while the field it matched last run has another
//   retyped     a declared field of another type

export interface ContractOutcome {
  result: CheckResult;
  /** The declared labels and the field IDs they match now (kept in _tds_checks for the next run). */
  matched: Record<string, string>;
}

export function evaluateContract(
  contract: SchemaContract,
  fields: readonly StoredField[],
  tableRef: string,
  previous: Record<string, string> | null,
): ContractOutcome {
  const drifts: string[] = [];
  const matched: Record<string, string> = {};
  const taken = new Set<string>();
  for (const declared of contract.fields) {
    let field = fields.find((each) => !taken.has(each.fieldId) && (each.label === declared.label || each.key === declared.label));
    const before = previous?.[declared.label];
    if (!field && before !== undefined) {
      field = fields.find((each) => each.fieldId === before && !taken.has(each.fieldId));
      if (field) drifts.push(`relabelled "${declared.label}" → "${field.label}"`);
    }
    if (!field) {
      drifts.push(`removed "${declared.label}"`);
      continue;
    }
    taken.add(field.fieldId);
    matched[declared.label] = field.fieldId;
    if (field.type !== declared.type) drifts.push(`retyped "${field.label}": ${declared.type} → ${field.type}`);
  }
  for (const field of fields) {
    if (!taken.has(field.fieldId) && !field.isSystem) drifts.push(`added "${field.label}" (${field.type})`);
  }
  const result: CheckResult = {
    table: tableRef,
    check: 'schema',
    kind: 'schema',
    status: judged(drifts.length === 0, contract.onDrift),
    observed: drifts.length,
    threshold: `${contract.fields.length} fields as declared`,
    examples: [],
    message: drifts.length === 0 ? null : drifts.join('; '),
  };
  return { result, matched };
}
