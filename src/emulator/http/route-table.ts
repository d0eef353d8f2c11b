/** One route: a method and a path pattern whose `:name` segments are parameters (any segment, even empty). */
export interface RoutePattern {
  method: string;
  path: string;
}

export type RouteLookup<R extends RoutePattern> =
  | { route: R; params: Record<string, string> }
  /** The path exists, not with this method: the methods it takes. */
  | { allow: string[] }
  | undefined;

/** Finds the route of a request by method and path (segments percent-decoded; a bad escape matches nothing). */
export class RouteTable<R extends RoutePattern> {
  private readonly compiled: Array<{ route: R; segments: string[] }>;

  constructor(readonly routes: readonly R[]) {
    this.compiled = routes.map((route) => ({ route, segments: route.path.split('/') }));
  }

  match(method: string, path: string): RouteLookup<R> {
    let segments: string[];
    try {
      segments = path.split('/').map(decodeURIComponent);
    } catch {
      return undefined;
    }
    const allow: string[] = [];
    for (const { route, segments: pattern } of this.compiled) {
      const params = matchSegments(pattern, segments);
      if (!params) continue;
      if (route.method === method) return { route, params };
      allow.push(route.method);
    }
    return allow.length > 0 ? { allow } : undefined;
  }
}

function matchSegments(pattern: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i += 1) {
    const expected = pattern[i]!;
    if (expected.startsWith(':')) params[expected.slice(1)] = segments[i]!;
    else if (expected !== segments[i]) return undefined;
  }
  return params;
}
