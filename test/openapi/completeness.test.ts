// The OpenAPI documents against the route tables, both ways: every route of each
// service is described, and every described operation is a route. Also what
// /openapi.json answers, and that each document stays inside the JSON Schema
// subset the answer validator (test/helpers/openapi.ts) checks.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createImghost } from '../../src/services/imghost/app.js';
import { IMGHOST_OPENAPI } from '../../src/services/imghost/openapi/document.js';
import { createSite } from '../../src/services/site/app.js';
import { SITE_OPENAPI } from '../../src/services/site/openapi/document.js';
import { HTTP_METHODS, operations, SCHEMA_KEYWORDS, type Json } from '../helpers/openapi.js';
import { closeTestSql, startTestImghost, startTestSite, testConfig, testLogger, testSql, type TestServer } from '../helpers/servers.js';

let site: TestServer;
let imghost: TestServer;
let siteRoutes: string[];
let imghostRoutes: string[];

test.before(async () => {
  site = await startTestSite();
  imghost = await startTestImghost();
  const siteApp = createSite({ config: testConfig(), sql: testSql(), log: testLogger() });
  siteRoutes = siteApp.routes.map((route) => `${route.method} ${route.path}`);
  await siteApp.close();
  const imghostApp = await createImghost({ config: testConfig(), log: testLogger() });
  imghostRoutes = imghostApp.routes.map((route) => `${route.method} ${route.path}`);
  await imghostApp.close();
});
test.after(async () => {
  await site.close();
  await imghost.close();
  await closeTestSql();
});

const services = () => [
  { what: 'site', doc: SITE_OPENAPI as Json, routes: siteRoutes, server: site },
  { what: 'image host', doc: IMGHOST_OPENAPI as Json, routes: imghostRoutes, server: imghost },
];

test('every route of each route table is in its document', () => {
  for (const service of services()) {
    const described = new Set(operations(service.doc).map((op) => op.route));
    const missing = service.routes.filter((route) => !described.has(route));
    assert.equal(missing, [], `${service.what}: routes missing from the document`);
    assert.ok(service.routes.length > 10, `${service.what}: the table was read`);
  }
});

test('every operation of each document is a route of its table', () => {
  for (const service of services()) {
    const routes = new Set(service.routes);
    const extra = operations(service.doc).filter((op) => !routes.has(op.route)).map((op) => `${op.method.toUpperCase()} ${op.template} (${op.route})`);
    assert.equal(extra, [], `${service.what}: operations without a route`);
  }
});

test('paths are OpenAPI templates; each template parameter is declared on its operations, and nothing else is', () => {
  for (const service of services()) {
    for (const op of operations(service.doc)) {
      assert.not.match(op.template, /[:*]/, `${op.template}: router syntax in an OpenAPI path`);
      const inTemplate = [...op.template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
      const declared = (op.operation.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name).sort();
      assert.equal(declared, inTemplate, `${service.what} ${op.method} ${op.template}`);
      for (const p of op.operation.parameters ?? []) if (p.in === 'path') assert.is(p.required, true, `${op.template} ${p.name}`);
      assert.ok(Object.keys(op.operation.responses).length > 0, `${op.template}: responses`);
      for (const status of Object.keys(op.operation.responses)) assert.match(status, /^[1-5]\d\d$/, `${op.template}: status ${status}`);
    }
    for (const item of Object.values<Json>(service.doc.paths)) {
      for (const key of Object.keys(item)) assert.ok(HTTP_METHODS.includes(key), `${service.what}: path item key ${key}`);
    }
  }
});

test('every error answer names its codes, and every schema stays inside the validated subset with resolvable $refs', () => {
  for (const service of services()) {
    const problems: string[] = [];
    const walk = (schema: Json, at: string) => {
      if (typeof schema !== 'object' || schema === null) return;
      for (const keyword of Object.keys(schema)) if (!SCHEMA_KEYWORDS.has(keyword)) problems.push(`${at}: ${keyword}`);
      if (schema.$ref) {
        const name = String(schema.$ref).replace('#/components/schemas/', '');
        if (!(name in service.doc.components.schemas)) problems.push(`${at}: $ref ${schema.$ref} resolves to nothing`);
      }
      for (const [name, child] of Object.entries<Json>(schema.properties ?? {})) walk(child, `${at}.${name}`);
      for (const [index, child] of [...(schema.allOf ?? []), ...(schema.anyOf ?? [])].entries()) walk(child, `${at}[${index}]`);
      if (schema.items) walk(schema.items, `${at}[]`);
      if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${at}{}`);
    };
    for (const [name, schema] of Object.entries<Json>(service.doc.components.schemas)) walk(schema, name);
    for (const op of operations(service.doc)) {
      for (const [status, response] of Object.entries<Json>(op.operation.responses)) {
        for (const [type, content] of Object.entries<Json>(response.content ?? {})) {
          if (content.schema) walk(content.schema, `${op.template} ${status} ${type}`);
          // A JSON error names the codes it can carry.
          if (Number(status) >= 400 && type === 'application/json' && !op.template.endsWith('/readyz')) {
            const codes = content.schema?.allOf?.[1]?.properties?.code?.enum;
            if (!Array.isArray(codes) || codes.length === 0) problems.push(`${op.method} ${op.template} ${status}: no error codes`);
          }
        }
      }
      const body = op.operation.requestBody?.content ?? {};
      for (const [type, content] of Object.entries<Json>(body)) walk(content.schema, `${op.template} body ${type}`);
      for (const p of op.operation.parameters ?? []) walk(p.schema, `${op.template} ${p.name}`);
    }
    assert.equal(problems, [], service.what);
  }
});

test('GET /openapi.json on each service: 200 application/json, Access-Control-Allow-Origin *, OpenAPI 3.1.x, the module\'s document; 304 on If-None-Match', async () => {
  for (const service of services()) {
    const answer = await fetch(service.server.url + '/openapi.json');
    assert.is(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    assert.is(answer.headers.get('access-control-allow-origin'), '*');
    const doc = await answer.json();
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.equal(doc, JSON.parse(JSON.stringify(service.doc)));
    const again = await fetch(service.server.url + '/openapi.json', { headers: { 'if-none-match': answer.headers.get('etag')! } });
    assert.is(again.status, 304);
  }
  const site = (await (await fetch(services()[0]!.server.url + '/openapi.json')).json()) as Json;
  assert.ok('/apps/api/plugins/{id}' in site.paths);
  assert.ok('/apps/api/tokens/{id}' in site.paths);
  const imghostDoc = (await (await fetch(services()[1]!.server.url + '/openapi.json')).json()) as Json;
  assert.ok('/img/{timestamp}/{md5}' in imghostDoc.paths);
});

test.run();
