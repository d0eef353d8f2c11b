import { WEBHOOK_PATH_PREFIX } from './secrets.js';

export type RouteName = 'workspaces' | 'tables' | 'schema' | 'rows' | 'query' | 'webhook' | 'emulatorRequests' | 'emulatorFlush';

export interface RouteMatch {
  name: RouteName;
  methods: readonly string[];
  /** tableId or webhook id, decoded */
  id?: string;
}

/** The service's routes, and the two emulator-only routes under /_emulator (not part of the service). */
export function matchRoute(path: string): RouteMatch | undefined {
  let segments: string[];
  try {
    segments = path.split('/').map(decodeURIComponent);
  } catch {
    return undefined;
  }
  const [root, first, id, second, third, ...rest] = segments.slice(1);
  if (rest.length > 0) return undefined;
  if (root === '_emulator' && id === undefined) {
    if (first === 'requests') return { name: 'emulatorRequests', methods: ['GET'] };
    if (first === 'flush') return { name: 'emulatorFlush', methods: ['POST'] };
    return undefined;
  }
  if (root !== 'v1') return undefined;
  if (id === undefined) {
    if (first === 'workspaces') return { name: 'workspaces', methods: ['GET'] };
    if (first === 'tables') return { name: 'tables', methods: ['GET'] };
    return undefined;
  }
  if (`/${root}/${first}/` === WEBHOOK_PATH_PREFIX && second === undefined) return { name: 'webhook', methods: ['POST', 'HEAD'], id };
  if (first !== 'tables') return undefined;
  if (second === 'schema' && third === undefined) return { name: 'schema', methods: ['GET'], id };
  if (second === 'rows' && third === undefined) return { name: 'rows', methods: ['GET'], id };
  if (second === 'rows' && third === 'query') return { name: 'query', methods: ['POST'], id };
  return undefined;
}
