// Routes are plain data. A table is compiled once at start-up; anything malformed or
// duplicated throws there, loudly. At request time `find` never throws: no match is
// an empty answer and the caller decides between 404 and 405.

export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type Method = (typeof METHODS)[number];

interface Segment {
  literal?: string;
  param?: string;
  wildcard?: boolean;
}

interface Compiled<T> {
  method: Method;
  pattern: string;
  segments: Segment[];
  value: T;
}

export interface RouteMatch<T> {
  value: T;
  pattern: string;
  /** Raw (still percent-encoded) parameter values; the caller decodes them. */
  rawParams: Record<string, string>;
}

export interface FindResult<T> {
  match: RouteMatch<T> | null;
  /** Methods that exist for this path; non-empty with no match means 405. */
  allowed: Method[];
}

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LITERAL = /^[A-Za-z0-9._~!$&'()+,;=@-]+$/;

export function compileRoutes<T>(routes: Array<{ method: string; path: string; value: T }>) {
  const staticRoutes = new Map<string, Map<Method, Compiled<T>>>();
  const dynamicRoutes: Compiled<T>[] = [];
  const shapes = new Set<string>();

  for (const route of routes) {
    const method = route.method.toUpperCase() as Method;
    if (!METHODS.includes(method) || method === 'HEAD') {
      throw new Error(`route ${route.method} ${route.path}: unsupported method (HEAD is served by GET)`);
    }
    const segments = parsePattern(route.path);
    const shape = method + ' ' + segments.map((s) => (s.literal ?? (s.wildcard ? '*' : ':'))).join('/');
    if (shapes.has(shape)) throw new Error(`route ${method} ${route.path}: duplicate of an earlier route`);
    shapes.add(shape);
    const compiled: Compiled<T> = { method, pattern: route.path, segments, value: route.value };
    if (segments.every((s) => s.literal !== undefined)) {
      const byMethod = staticRoutes.get(route.path) ?? new Map();
      byMethod.set(method, compiled);
      staticRoutes.set(route.path, byMethod);
    } else {
      dynamicRoutes.push(compiled);
    }
  }

  function find(method: string, path: string): FindResult<T> {
    const wanted = (method === 'HEAD' ? 'GET' : method) as Method;
    const allowed = new Set<Method>();
    const exact = staticRoutes.get(path);
    if (exact) {
      for (const m of exact.keys()) allowed.add(m);
      const hit = exact.get(wanted);
      if (hit) return { match: { value: hit.value, pattern: hit.pattern, rawParams: {} }, allowed: [...allowed] };
    }
    const parts = path.split('/').slice(1);
    for (const route of dynamicRoutes) {
      const rawParams = matchSegments(route.segments, parts);
      if (!rawParams) continue;
      if (route.method === wanted) return { match: { value: route.value, pattern: route.pattern, rawParams }, allowed: [] };
      allowed.add(route.method);
    }
    if (allowed.has('GET')) allowed.add('HEAD');
    return { match: null, allowed: [...allowed] };
  }

  return { find };
}

function parsePattern(path: string): Segment[] {
  if (!path.startsWith('/')) throw new Error(`route ${path}: must start with /`);
  if (path === '/') return [{ literal: '' }];
  const names = new Set<string>();
  const raw = path.slice(1).split('/');
  return raw.map((part, index) => {
    if (part === '*') {
      if (index !== raw.length - 1) throw new Error(`route ${path}: * must be the last segment`);
      return { wildcard: true, param: '*' };
    }
    if (part.startsWith(':')) {
      const name = part.slice(1);
      if (!PARAM_NAME.test(name)) throw new Error(`route ${path}: bad parameter name "${name}"`);
      if (names.has(name)) throw new Error(`route ${path}: parameter "${name}" appears twice`);
      names.add(name);
      return { param: name };
    }
    if (!LITERAL.test(part)) throw new Error(`route ${path}: bad segment "${part}"`);
    return { literal: part };
  });
}

function matchSegments(segments: Segment[], parts: string[]): Record<string, string> | null {
  const params: Record<string, string> = Object.create(null);
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.wildcard) {
      params['*'] = parts.slice(i).join('/');
      return params;
    }
    const part = parts[i];
    if (part === undefined) return null;
    if (segment.literal !== undefined) {
      if (segment.literal !== part) return null;
    } else {
      if (part === '') return null;
      params[segment.param!] = part;
    }
  }
  return parts.length === segments.length ? params : null;
}
