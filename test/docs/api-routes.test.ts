// docs/api.md against the route tables of both services, both ways: every route is
// named in the reference, and every route the reference names exists. A route is
// "named" by a table row (`| GET | \`/path\` |`) or by `METHOD /path` in backticks;
// path parameters may be written :id, {id} or <id>, and a named example path
// (`GET /apps/api/plugins/minimap`) matches the route whose parameter it fills.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createImghost } from '../../src/services/imghost/app.js';
import { projectRoot } from '../../src/lib/project-root.js';
import { createSite } from '../../src/services/site/app.js';
import { closeTestSql, testConfig, testLogger, testSql } from '../helpers/servers.js';

const METHODS = 'GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS';
const PARAMETER = /[:{<*]/;

interface Named {
  method: string;
  path: string;
  line: number;
}

/** A path as segments, each parameter (or wildcard) written ':'; the query and an optional `[.ext]` dropped. */
function segments(path: string): string[] {
  const bare = path.replace(/[?#].*$/, '').replace(/\[[^\]]*\]/g, '');
  return bare.split('/').slice(1).map((segment) => (PARAMETER.test(segment) ? ':' : segment));
}

const shape = (path: string) => '/' + segments(path).join('/');

/** Every route the reference names, with the line that names it. */
function namedRoutes(text: string): Named[] {
  const named: Named[] = [];
  text.split('\n').forEach((line, index) => {
    const row = new RegExp(`^\\|\\s*(${METHODS})\\s*\\|([^|]*)\\|`).exec(line);
    if (row) {
      for (const path of row[2]!.matchAll(/`(\/[^`\s]*)`/g)) named.push({ method: row[1]!, path: path[1]!, line: index + 1 });
    }
    for (const mention of line.matchAll(new RegExp(`\`(${METHODS}) (\\/[^\`\\s]*)\``, 'g'))) {
      named.push({ method: mention[1]!, path: mention[2]!, line: index + 1 });
    }
  });
  return named;
}

/** Whether a named path fits a route's segments: as many, a route parameter taking any value. */
function fits(route: string[], named: string[]): boolean {
  return named.length === route.length && route.every((segment, i) => segment === ':' || segment === named[i]);
}

let routes: { service: string; method: string; path: string; wildcard: boolean }[] = [];
let named: Named[] = [];

test.before(async () => {
  const site = createSite({ config: testConfig(), sql: testSql(), log: testLogger() });
  const imghost = await createImghost({ config: testConfig(), log: testLogger() });
  routes = [
    ...site.routes.map(({ method, path }) => ({ service: 'site', method, path, wildcard: path.endsWith('*') })),
    ...imghost.routes.map(({ method, path }) => ({ service: 'image host', method, path, wildcard: path.endsWith('*') })),
  ];
  await site.close();
  await imghost.close();
  named = namedRoutes(readFileSync(join(projectRoot(), 'docs', 'api.md'), 'utf8'));
});
test.after(closeTestSql);

test('the reader of the reference finds routes (its own rows)', () => {
  const rows = namedRoutes('| GET | `/a/:id`, `/b` | x |\nsee `POST /c/{x}?y=1` and `DELETE /d/<e>[.webp]`');
  assert.equal(rows.map(({ method, path }) => `${method} ${shape(path)}`), ['GET /a/:', 'GET /b', 'POST /c/:', 'DELETE /d/:']);
  assert.ok(fits(['apps', 'api', 'plugins', ':'], ['apps', 'api', 'plugins', 'minimap']));
  assert.not.ok(fits(['apps', 'api', 'plugins', ':'], ['apps', 'api', 'plugins', 'minimap', 'ratings']));
  assert.ok(routes.length > 60, 'both route tables were read');
});

test('docs/api.md names every route of both services', () => {
  const shapes = new Set(named.map(({ method, path }) => `${method} ${shape(path)}`));
  const isNamed = ({ method, path, wildcard }: (typeof routes)[number]) =>
    shapes.has(`${method} ${shape(path)}`) || (wildcard && named.some((name) => name.method === method && fitsRoute(path, segments(name.path))));
  const missing = routes.filter((route) => !isNamed(route)).map(({ service, method, path }) => `${service}: ${method} ${path}`);
  assert.equal([...new Set(missing)], []);
});

test('docs/api.md names no route that does not exist', () => {
  const unknown = named.filter(({ method, path }) => {
    const wanted = segments(path);
    return !routes.some((route) => (route.method === method || (method === 'HEAD' && route.method === 'GET')) && fitsRoute(route.path, wanted));
  });
  assert.equal(unknown.map(({ method, path, line }) => `line ${line}: ${method} ${path}`), []);
});

/** `wanted` may end in `...` (`GET /pkg/...`): any route below what comes before it. */
function fitsRoute(routePath: string, wanted: string[]): boolean {
  const route = segments(routePath);
  if (wanted.at(-1) === '...') return route.length >= wanted.length && fits(route.slice(0, wanted.length - 1), wanted.slice(0, -1));
  if (routePath.endsWith('*')) return wanted.length >= route.length && fits(route, wanted.slice(0, route.length - 1).concat(':'));
  return fits(route, wanted);
}

test.run();
