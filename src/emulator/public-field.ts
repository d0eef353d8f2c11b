import type { Field } from '../spec/index.js';
import type { FieldRec } from './model.js';

/** A column as the service shows it: action settings, mapped keys and the like stay inside. */
export function publicField({ id, name, label, type, options, isSystem }: FieldRec): Field {
  return { id, name, label, type, options, isSystem };
}
