import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { badRequest } from '../http/http-io.js';

/** What a cursor is bound to: reusing it with any other endpoint, table, search or filters is refused. */
export interface CursorScope {
  endpoint: 'rows' | 'query';
  tableId: string;
  search: string;
  /** Canonical JSON of the filters, '' without any. */
  filters: string;
}

/** The last row of the page: `createdAt` is set for newest-first pages, absent for pages in id order. */
export interface CursorPosition {
  id: string;
  createdAt?: number;
}

/**
 * Opaque cursors: base64url JSON of the position and a hash of the scope, then an HMAC under a secret of this
 * emulator run, so a hand-built or edited cursor is refused.
 */
export class CursorCodec {
  private readonly secret = randomBytes(32);

  encode(scope: CursorScope, position: CursorPosition): string {
    const payload = Buffer.from(JSON.stringify({ s: scopeHash(scope), ...position })).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decode(cursor: string, scope: CursorScope): CursorPosition {
    const [payload, signature, extra] = cursor.split('.');
    if (payload === undefined || signature === undefined || extra !== undefined || !this.verify(payload, signature)) {
      throw badRequest('cursor is not valid: send the nextCursor of the previous page unchanged');
    }
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { s: string; id: string; createdAt?: number };
    if (data.s !== scopeHash(scope)) {
      throw badRequest('cursor does not match this request: it was issued for a different endpoint, table, search or filters');
    }
    return data.createdAt === undefined ? { id: data.id } : { id: data.id, createdAt: data.createdAt };
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest().subarray(0, 16).toString('base64url');
  }

  private verify(payload: string, signature: string): boolean {
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

function scopeHash(scope: CursorScope): string {
  return createHash('sha256')
    .update(JSON.stringify([scope.endpoint, scope.tableId, scope.search, scope.filters]))
    .digest()
    .subarray(0, 12)
    .toString('base64url');
}
