import { describe, expect, it } from 'vitest';
import { churnRow } from '../../../src/emulator/churn/churn.js';
import { createPrng } from '../../../src/emulator/seed/prng.js';
import type { FieldRec } from '../../../src/emulator/store/model.js';
import { RowList } from '../../../src/emulator/store/row-list.js';
import { webhookRow } from '../../../src/emulator/webhook/intake.js';

// Regression: a column mapped from a posted key named like an object prototype member (`toString`,
// `constructor`, `__proto__`) was filled from the prototype when the object did not have that key.

const MAP_KEYS = ['toString', 'constructor', '__proto__', 'hasOwnProperty', '__proto__.toString', 'a.constructor'];
const fields: FieldRec[] = [
  { id: 'f_payload', name: 'payload', label: 'Payload', type: 'webhook', options: null, isSystem: false },
  ...MAP_KEYS.map((mapKey, i): FieldRec => ({
    id: `f${i}`,
    name: `n${i}`,
    label: mapKey,
    type: 'text',
    options: null,
    isSystem: false,
    mapKey,
  })),
];

describe('webhookRow: mapped keys', () => {
  it('fills no column from a key the posted object does not have', () => {
    const row = webhookRow({ fields }, JSON.parse('{"a": {}}') as Record<string, unknown>, 'row_1', 0);
    expect(Object.keys(row.cells)).toEqual(['f_payload']);
  });

  it('fills each column from the posted object’s own key, `__proto__` included', () => {
    const posted = JSON.parse('{"toString": "t", "constructor": "c", "__proto__": "p", "hasOwnProperty": "h"}') as Record<string, unknown>;
    const row = webhookRow({ fields }, posted, 'row_1', 0);
    expect(Object.entries(row.cells).map(([id, cell]) => [id, cell.value])).toEqual([
      ['f_payload', posted],
      ['f0', 't'],
      ['f1', 'c'],
      ['f2', 'p'],
      ['f3', 'h'],
    ]);
  });

  it('churn posts a value for every mapped key, `__proto__` included, and fills every mapped column', () => {
    const table = {
      id: 'tbl_1',
      orgId: 'org_1',
      workspaceId: 'ws_1',
      name: 'Hooks',
      emoji: null,
      fields,
      rows: new RowList(),
      webhookId: 'w',
    };
    const row = churnRow(table, createPrng(1), 'row_1', 0);
    const payload = row.cells.f_payload!.value as object;
    expect(Object.keys(payload)).toEqual(['toString', 'constructor', '__proto__', 'hasOwnProperty', 'a']);
    expect(Object.keys(row.cells)).toEqual(['f_payload', ...MAP_KEYS.map((_, i) => `f${i}`)]);
  });
});
