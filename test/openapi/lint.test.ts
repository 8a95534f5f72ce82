// Both served OpenAPI documents pass Redocly's `recommended` rules (what
// `redocly lint` checks by default), so that generated clients (openapi-typescript,
// openapi-generator) get readable method names, declared security and sound
// responses. The lint runs in-process with @redocly/openapi-core, offline.
// Every problem fails the test, except the few in ACCEPTED, each with its reason;
// an accepted problem that no longer occurs fails too, so the list stays true.
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeTestSql, startTestImghost, startTestSite, type TestServer } from '../helpers/servers.js';

let site: TestServer;
let imghost: TestServer;

test.before(async () => {
  site = await startTestSite();
  imghost = await startTestImghost();
});
test.after(async () => {
  await site.close();
  await imghost.close();
  await closeTestSql();
});

/** Problems the rules report that are true of the API as it is, and why they stay. */
const ACCEPTED: Array<{ service: string; rule: string; pointer: string; why: string }> = [
  {
    service: 'site',
    rule: 'no-ambiguous-paths',
    pointer: '#/paths/~1apps~1api~1plugins~1{id}~1ratings~1replies~1{replyId}',
    why: 'DELETE .../ratings/replies/{replyId} and POST .../ratings/{ratingUser}/unhide share a shape but not a method, so no request can match both',
  },
  {
    service: 'site',
    rule: 'operation-2xx-response',
    pointer: '#/paths/~1apps~1auth~1login/get/responses',
    why: 'starting a login is a redirect to the identity provider (302), never a 2xx',
  },
  {
    service: 'site',
    rule: 'operation-2xx-response',
    pointer: '#/paths/~1apps~1auth~1callback/get/responses',
    why: 'the identity provider sends the browser back here, and it is sent on with a redirect (302)',
  },
  {
    service: 'site',
    rule: 'operation-2xx-response',
    pointer: '#/paths/~1apps~1auth~1logout/get/responses',
    why: 'the browser logout ends with a redirect to the store (302); POST /apps/auth/logout is the JSON one',
  },
  {
    service: 'image host',
    rule: 'operation-2xx-response',
    pointer: '#/paths/~1img~1{path}/get/responses',
    why: 'the catch-all under /img exists only to answer 404 `Image not found` to any other shape',
  },
];

interface Problem {
  ruleId: string;
  severity: string;
  message: string;
  location: Array<{ pointer?: string }>;
}

async function lintServed(what: string, server: TestServer): Promise<Problem[]> {
  const answer = await fetch(`${server.url}/openapi.json`);
  assert.is(answer.status, 200, what);
  const config = await createConfig({ extends: ['recommended'] });
  return (await lintFromString({ source: await answer.text(), absoluteRef: `/${what.replace(' ', '-')}/openapi.json`, config })) as Problem[];
}

const services = () => [
  { what: 'site', server: site },
  { what: 'image host', server: imghost },
];

test('each served document passes the recommended rules, but for the accepted problems', async () => {
  for (const { what, server } of services()) {
    const problems = await lintServed(what, server);
    const seen = problems.map((problem) => ({ rule: problem.ruleId, pointer: problem.location[0]?.pointer ?? '', severity: problem.severity, message: problem.message }));
    const unexpected = seen.filter((problem) => !ACCEPTED.some((accepted) => accepted.service === what && accepted.rule === problem.rule && accepted.pointer === problem.pointer));
    assert.equal(unexpected, [], `${what}: lint problems`);
    for (const accepted of ACCEPTED.filter((entry) => entry.service === what)) {
      const still = seen.find((problem) => problem.rule === accepted.rule && problem.pointer === accepted.pointer);
      assert.ok(still, `${what}: accepted ${accepted.rule} at ${accepted.pointer} no longer occurs: remove it from ACCEPTED`);
      assert.is(still!.severity, 'warn', `${what}: an accepted problem must be a warning, never an error`);
    }
  }
});

test('every operation has a camelCase operationId, unique in its document, a tag and a security requirement', async () => {
  for (const { what, server } of services()) {
    const doc = await (await fetch(`${server.url}/openapi.json`)).json();
    const ids: string[] = [];
    const tags = new Set((doc.tags as Array<{ name: string }>).map((tag) => tag.name));
    for (const [path, item] of Object.entries<Record<string, { operationId?: string; tags?: string[]; security?: unknown[] }>>(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${what} ${method.toUpperCase()} ${path}`;
        assert.match(operation.operationId ?? '', /^[a-z][a-zA-Z0-9]+$/, `${where}: operationId`);
        ids.push(operation.operationId!);
        assert.ok(Array.isArray(operation.security), `${where}: security`);
        assert.is(operation.tags?.length, 1, `${where}: one tag`);
        assert.ok(tags.has(operation.tags![0]!), `${where}: tag ${operation.tags![0]} is declared`);
      }
    }
    assert.is(new Set(ids).size, ids.length, `${what}: operationIds are unique`);
  }
});

test('the lint still catches what it is there for: a document without operationIds or security fails', async () => {
  const config = await createConfig({ extends: ['recommended'] });
  const bare = { openapi: '3.1.0', info: { title: 'x', version: '1', license: { name: 'MIT', identifier: 'MIT' } }, servers: [{ url: '/' }], paths: { '/x': { get: { summary: 'x', responses: { '200': { description: 'ok' }, '400': { description: 'bad' } } } } } };
  const rules = ((await lintFromString({ source: JSON.stringify(bare), absoluteRef: '/bare.json', config })) as Problem[]).map((problem) => problem.ruleId).sort();
  assert.equal(rules, ['operation-operationId', 'security-defined']);
});

test.run();
