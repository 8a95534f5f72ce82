import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileRoutes } from '../../src/http/router.js';

const table = compileRoutes([
  { method: 'GET', path: '/', value: 'root' },
  { method: 'GET', path: '/api/info', value: 'info' },
  { method: 'POST', path: '/api/info', value: 'info-post' },
  { method: 'GET', path: '/plugins/:id', value: 'plugin' },
  { method: 'PATCH', path: '/plugins/:id', value: 'plugin-patch' },
  { method: 'GET', path: '/plugins/:id/manifest.json', value: 'manifest' },
  { method: 'DELETE', path: '/plugins/:id/ratings/replies/:replyId', value: 'reply' },
  { method: 'GET', path: '/static/*', value: 'static' },
]);

const cases = [
  { what: 'root', method: 'GET', path: '/', value: 'root', params: {} },
  { what: 'static path', method: 'GET', path: '/api/info', value: 'info', params: {} },
  { what: 'HEAD falls back to GET', method: 'HEAD', path: '/api/info', value: 'info', params: {} },
  { what: 'named parameter', method: 'GET', path: '/plugins/a.b-c', value: 'plugin', params: { id: 'a.b-c' } },
  { what: 'parameter stays raw (caller decodes)', method: 'GET', path: '/plugins/a%2Fb', value: 'plugin', params: { id: 'a%2Fb' } },
  { what: 'literal after parameter', method: 'GET', path: '/plugins/x/manifest.json', value: 'manifest', params: { id: 'x' } },
  { what: 'two parameters', method: 'DELETE', path: '/plugins/x/ratings/replies/7', value: 'reply', params: { id: 'x', replyId: '7' } },
  { what: 'wildcard', method: 'GET', path: '/static/a/b.css', value: 'static', params: { '*': 'a/b.css' } },
  { what: 'wildcard keeps empty segments as they are', method: 'GET', path: '/static/a//b/', value: 'static', params: { '*': 'a//b/' } },
  { what: 'wildcard with nothing after its slash', method: 'GET', path: '/static/', value: 'static', params: { '*': '' } },
  { what: 'wildcard matches its bare prefix with an empty rest', method: 'GET', path: '/static', value: 'static', params: { '*': '' } },
  { what: 'parameter next to a longer literal', method: 'GET', path: '/plugins/manifest.json/manifest.json', value: 'manifest', params: { id: 'manifest.json' } },
];

for (const c of cases) {
  test(`find: ${c.what}`, () => {
    const found = table.find(c.method, c.path);
    assert.ok(found.match, 'expected a match');
    assert.is(found.match!.value, c.value);
    assert.equal({ ...found.match!.rawParams }, c.params);
  });
}

test('find: unknown path gives no match and no allowed methods (404)', () => {
  const found = table.find('GET', '/nope');
  assert.is(found.match, null);
  assert.equal(found.allowed, []);
});

test('find: known path, wrong method lists the allowed ones (405)', () => {
  const found = table.find('DELETE', '/plugins/x');
  assert.is(found.match, null);
  assert.equal([...found.allowed].sort(), ['GET', 'HEAD', 'PATCH']);
  assert.equal([...table.find('PUT', '/api/info').allowed].sort(), ['GET', 'HEAD', 'POST']);
});

test('find: empty parameter and trailing slash do not match', () => {
  assert.is(table.find('GET', '/plugins/').match, null);
  assert.is(table.find('GET', '/plugins/x/').match, null);
  assert.is(table.find('GET', '/api/info/').match, null);
  assert.is(table.find('GET', '/plugins//manifest.json').match, null);
  assert.is(table.find('DELETE', '/plugins/x/ratings//7').match, null);
  assert.is(table.find('GET', '/plugins/x/manifest.jsonx').match, null);
  assert.is(table.find('GET', '/pluginsx/x').match, null);
});

test('a route with a trailing slash is a route of its own (/apps/ beside /apps)', () => {
  const apps = compileRoutes([
    { method: 'GET', path: '/apps', value: 'redirect' },
    { method: 'GET', path: '/apps/', value: 'store' },
  ]);
  assert.is(apps.find('GET', '/apps')!.match!.value, 'redirect');
  assert.is(apps.find('GET', '/apps/')!.match!.value, 'store');
  assert.is(apps.find('GET', '/apps//').match, null);
  assert.throws(() => compileRoutes([{ method: 'GET', path: '/apps//x', value: 1 }]), /bad segment/);
});

test('find: routes are tried in table order whatever their first segment (a leading parameter before a literal)', () => {
  const ordered = compileRoutes([
    { method: 'GET', path: '/:section/list', value: 'section-list' },
    { method: 'GET', path: '/img/*', value: 'img' },
    { method: 'GET', path: '/img/:a/list', value: 'img-list' },
    { method: 'GET', path: '/SF/*', value: 'icon' },
  ]);
  const cases = [
    { what: 'leading parameter wins over a later literal', path: '/img/list', value: 'section-list' },
    { what: 'earlier wildcard wins over a later pattern', path: '/img/x/list', value: 'img' },
    { what: 'first segment as the only segment', path: '/SF', value: 'icon' },
    { what: 'a first segment no literal route has', path: '/other/list', value: 'section-list' },
    { what: 'literal prefix of another first segment', path: '/SFs/x', value: undefined },
  ];
  for (const c of cases) assert.is(ordered.find('GET', c.path).match?.value, c.value, c.what);
});

test('find: parameters inherit no key, not even from Object.prototype', () => {
  const params = table.find('GET', '/plugins/x')!.match!.rawParams;
  assert.is(params.id, 'x');
  for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    assert.is((params as Record<string, unknown>)[key], undefined, key);
    assert.not.ok(key in params, key);
  }
  assert.equal(Object.keys(table.find('GET', '/api/info')!.match!.rawParams), []);
});

const bad = [
  { what: 'duplicate route', routes: [{ method: 'GET', path: '/a/:x' }, { method: 'GET', path: '/a/:y' }] },
  { what: 'missing leading slash', routes: [{ method: 'GET', path: 'a' }] },
  { what: 'bad parameter name', routes: [{ method: 'GET', path: '/a/:1x' }] },
  { what: 'repeated parameter name', routes: [{ method: 'GET', path: '/a/:x/:x' }] },
  { what: 'wildcard not last', routes: [{ method: 'GET', path: '/a/*/b' }] },
  { what: 'unknown method', routes: [{ method: 'FETCH', path: '/a' }] },
  { what: 'HEAD declared (served by GET)', routes: [{ method: 'HEAD', path: '/a' }] },
  { what: 'empty segment', routes: [{ method: 'GET', path: '/a//b' }] },
  { what: 'space in segment', routes: [{ method: 'GET', path: '/a b' }] },
];
for (const c of bad) {
  test(`compile throws: ${c.what}`, () => {
    assert.throws(() => compileRoutes(c.routes.map((r) => ({ ...r, value: 1 }))));
  });
}

test.run();
