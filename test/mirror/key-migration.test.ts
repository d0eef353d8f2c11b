import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { applySchema } from '../../src/mirror/apply-schema.js';
import { planSchema, type StoredField } from '../../src/mirror/schema-drift.js';
import type { Field } from '../../src/service/index.js';

// A mirror written before the keys reserved `<key>.status`: a text column labelled `Enrich.status` had
// that key and the action column's status column was `Enrich.status (2)`. Now the text column yields the
// key: the next sync swaps the two columns' names, values kept.

const field = (id: string, label: string, type: Field['type']): Field => ({ id, name: id, label, type, options: null, isSystem: false });
const fields = [field('f_enrich', 'Enrich', 'action'), field('f_text', 'Enrich.status', 'text')];
const stored = (f: Field, position: number, [key, statusKey, errorKey]: [string, string | null, string | null]): StoredField => ({
  fieldId: f.id,
  position,
  key,
  statusKey,
  errorKey,
  label: f.label,
  name: f.name,
  type: f.type,
  options: null,
  isSystem: false,
  removed: false,
});
const before = [
  stored(fields[0]!, 0, ['Enrich', 'Enrich.status (2)', 'Enrich.error']),
  stored(fields[1]!, 1, ['Enrich.status', null, null]),
];

describe('planSchema: keys that changed with the rule', () => {
  it('renames the status column of a field whose own key stayed, and the column that took its key', async () => {
    const plan = planSchema(before, fields, 'label');
    expect(plan.fields.map((each) => [each.key, each.statusKey, each.errorKey])).toEqual([
      ['Enrich', 'Enrich.status', 'Enrich.error'],
      ['Enrich.status (2)', null, null],
    ]);
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      await connection.run(`CREATE TABLE t ("Enrich" JSON, "Enrich.status (2)" VARCHAR, "Enrich.error" VARCHAR, "Enrich.status" VARCHAR)`);
      await connection.run(`INSERT INTO t VALUES ('"x"', 'failed', 'boom', 'text')`);
      const lines = await applySchema(connection, ['t'], before, plan);
      expect(lines).toEqual([
        'column "Enrich.status (2)" renamed to "Enrich.status"',
        'column "Enrich.status" renamed to "Enrich.status (2)"',
      ]);
      const rows = (await connection.runAndReadAll('SELECT * FROM t')).getRowObjectsJS();
      expect(rows).toEqual([{ Enrich: '"x"', 'Enrich.status': 'failed', 'Enrich.error': 'boom', 'Enrich.status (2)': 'text' }]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it('a field that becomes an action column is retyped (its status and error columns added), not renamed', () => {
    const score = field('f_score', 'Score', 'text');
    const plan = planSchema([stored(score, 0, ['Score', null, null])], [{ ...score, type: 'action' }], 'label');
    expect(plan.changes.map((change) => change.kind)).toEqual(['retyped']);
  });
});
