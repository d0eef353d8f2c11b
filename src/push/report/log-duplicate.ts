import type { Context } from '../../core/context.js';

/** --verbose lists each record left out for its repeated key. */
export function logDuplicate(ctx: Context): (record: number, of: number, key: string) => void {
  return (record, of, key) => ctx.verbose(`record ${record} not sent: its key ${JSON.stringify(key)} repeats record ${of}'s`);
}
