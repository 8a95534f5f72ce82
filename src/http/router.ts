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
  /**
   * Raw (still percent-encoded) parameter values; the caller decodes them. Made for
   * each dynamic match, so the caller may decode them in place; a static route's is
   * one shared frozen empty object.
   */
  rawParams: Record<string, string>;
}

export interface FindResult<T> {
  match: RouteMatch<T> | null;
  /** Methods that exist for this path; non-empty with no match means 405. */
  allowed: readonly Method[];
}

/** The `allowed` of every match: a caller reads it only when nothing matched. */
const NONE_ALLOWED: readonly Method[] = Object.freeze([]);

/**
 * The prototype of every parameter object: empty, frozen, with a null prototype, so
 * a parameter object inherits no key at all (no `constructor`, no `__proto__`
 * setter). Not Object.create(null) itself: V8 keeps such objects as hash tables,
 * and creating and walking one cost ten times more on every dynamic request.
 */
const NOTHING_INHERITED: object = Object.freeze(Object.create(null));
/** The parameters of every static match (and of a request no route takes). */
export const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(NOTHING_INHERITED));

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LITERAL = /^[A-Za-z0-9._~!$&'()+,;=@-]+$/;

export function compileRoutes<T>(routes: Array<{ method: string; path: string; value: T }>) {
  // A static hit, the common case (launchers polling /api/info), returns an answer
  // made here once: no allocation per request.
  const staticRoutes = new Map<string, Map<Method, FindResult<T>>>();
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
    if (segments.every((s) => s.literal !== undefined)) {
      const byMethod = staticRoutes.get(route.path) ?? new Map();
      byMethod.set(method, { match: { value: route.value, pattern: route.path, rawParams: NO_PARAMS }, allowed: [] });
      staticRoutes.set(route.path, byMethod);
    } else {
      dynamicRoutes.push({ method, pattern: route.path, segments, value: route.value });
    }
  }
  // Dynamic routes by their first segment: a path is tried only against the routes
  // whose first segment is that literal, or a parameter, in table order (a route
  // with another first literal cannot match it). `/SF/home` on the image host is
  // then tried against `/SF/*` alone, not every pattern before it.
  const anyFirst = dynamicRoutes.filter((route) => route.segments[0]!.literal === undefined);
  const byFirst = new Map<string, Compiled<T>[]>();
  for (const route of dynamicRoutes) {
    const first = route.segments[0]!.literal;
    if (first !== undefined && !byFirst.has(first)) {
      byFirst.set(first, dynamicRoutes.filter((other) => other.segments[0]!.literal === undefined || other.segments[0]!.literal === first));
    }
  }
  for (const byMethod of staticRoutes.values()) {
    for (const found of byMethod.values()) {
      found.allowed = [...byMethod.keys()];
      Object.freeze(found.allowed);
      Object.freeze(found.match);
      Object.freeze(found);
    }
  }

  function find(method: string, path: string): FindResult<T> {
    const wanted = (method === 'HEAD' ? 'GET' : method) as Method;
    const exact = staticRoutes.get(path);
    const hit = exact?.get(wanted);
    if (hit) return hit;
    const slash = path.indexOf('/', 1);
    const candidates = byFirst.get(slash === -1 ? path.slice(1) : path.slice(1, slash)) ?? anyFirst;
    for (const route of candidates) {
      if (route.method !== wanted) continue;
      const rawParams = matchPath(route.segments, path);
      if (rawParams) return { match: { value: route.value, pattern: route.pattern, rawParams }, allowed: NONE_ALLOWED };
    }
    // No match: only now is it worth listing what the path does allow (405 or 404).
    const allowed = new Set<Method>(exact?.keys());
    for (const route of dynamicRoutes) {
      if (matchPath(route.segments, path)) allowed.add(route.method);
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
    // A trailing slash is a route of its own (`/apps/` is the store, `/apps` redirects there).
    if (part === '' && index === raw.length - 1 && index > 0) return { literal: '' };
    if (!LITERAL.test(part)) throw new Error(`route ${path}: bad segment "${part}"`);
    return { literal: part };
  });
}

/**
 * The raw parameters when `path` fits the pattern, else null. It walks the path in
 * place rather than splitting it: a split makes an array and a string per segment
 * on every request, and most routes tried are ruled out by their first literal.
 * A path is `/` and then segments separated by `/`; a segment may be empty (`/a//b`,
 * a trailing `/`), and an empty one never fills a parameter.
 */
function matchPath(segments: Segment[], path: string): Record<string, string> | null {
  let params: Record<string, string> | null = null;
  let at = 1; // where the current segment starts, just past its `/`
  for (const segment of segments) {
    if (segment.wildcard) {
      params ??= Object.create(NOTHING_INHERITED) as Record<string, string>;
      params['*'] = at < path.length ? path.slice(at) : '';
      return params;
    }
    if (at > path.length) return null; // the path has fewer segments
    let end = path.indexOf('/', at);
    if (end === -1) end = path.length;
    if (segment.literal !== undefined) {
      if (end - at !== segment.literal.length || !path.startsWith(segment.literal, at)) return null;
    } else {
      if (end === at) return null;
      params ??= Object.create(NOTHING_INHERITED) as Record<string, string>;
      params[segment.param!] = path.slice(at, end);
    }
    at = end + 1;
  }
  // Every segment matched; the path must have ended with the last one.
  return at === path.length + 1 ? (params ?? (Object.create(NOTHING_INHERITED) as Record<string, string>)) : null;
}
