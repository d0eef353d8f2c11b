import type { Field } from '../../service/index.js';
import type { FieldRec } from '../store/model.js';

/** A column as the service shows it: action settings, mapped keys and the like stay inside. */
export function publicField({ id, name, label, type, options, isSystem }: FieldRec): Field {
  return { id, name, label, type, options, isSystem };
}
