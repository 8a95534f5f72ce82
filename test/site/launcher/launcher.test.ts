// GET /api/info and GET /api/fastdownload over a real site (docs/api.md, "Launcher
// info"). Reloading is in reload.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeTestSql, startTestSite, tempDir, type TestServer } from '../../helpers/servers.js';

const INFO_KEYS = ['success', 'latestVersion', 'description', 'newVersionDescription', 'beta', 'downloads', 'BLTips', 'activity'];

const FULL = {
  latestVersion: '25.3.1',
  description: 'A launcher',
  newVersionDescription: 'Fixes',
  beta: { version: '25.4.0-beta.1' },
  downloads: [{ name: 'GitHub', url: 'https://example.com/a.exe' }, { name: 'Mirror', url: 'https://mirror.example/a.exe' }],
  BLTips: ['tip one', 'tip two'],
  activity: [{ title: 'Contest' }],
  fastdownload: { enabled: true, versions: [{ version: '1.21.4' }, { version: '1.20.1' }] },
  notServed: 'kept private',
};

/** A site whose LAUNCHER_CONFIG holds `content` (a value to serialize, or raw text); undefined: no file. */
async function siteWith(content: unknown): Promise<TestServer> {
  const file = join(tempDir(), 'launcher.json');
  if (content !== undefined) writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return startTestSite({ LAUNCHER_CONFIG: file });
}

async function withSite(content: unknown, body: (site: TestServer) => Promise<void>): Promise<void> {
  const site = await siteWith(content);
  try {
    await body(site);
  } finally {
    await site.close();
  }
}

test.after(async () => {
  await closeTestSql();
});

test('info answers the seven fields beside success: true, and nothing else from the file', () =>
  withSite(FULL, async (site) => {
    const res = await fetch(site.url + '/api/info');
    assert.is(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = await res.json();
    assert.equal(Object.keys(body), INFO_KEYS);
    assert.is(body.success, true);
    assert.is(body.latestVersion, '25.3.1');
    assert.is(body.description, 'A launcher');
    assert.is(body.newVersionDescription, 'Fixes');
    assert.equal(body.beta, FULL.beta);
    assert.equal(body.downloads, FULL.downloads);
    assert.equal(body.BLTips, FULL.BLTips);
    assert.equal(body.activity, FULL.activity);
  }));

test('fastdownload answers enabled and versions beside success: true', () =>
  withSite(FULL, async (site) => {
    const res = await fetch(site.url + '/api/fastdownload');
    assert.is(res.status, 200);
    assert.equal(await res.json(), { success: true, enabled: true, versions: FULL.fastdownload.versions });
  }));

test('legacy keys BLLatest, Description, BLNewVersionDescription, Beta are served under the new names', () =>
  withSite({ BLLatest: '1.9.0', Description: 'old d', BLNewVersionDescription: 'old n', Beta: true, BLTips: ['t'] }, async (site) => {
    const body = await (await fetch(site.url + '/api/info')).json();
    assert.equal(body, {
      success: true,
      latestVersion: '1.9.0',
      description: 'old d',
      newVersionDescription: 'old n',
      beta: true,
      downloads: null,
      BLTips: ['t'],
      activity: null,
    });
  }));

test('the new key names win over the legacy ones', () =>
  withSite(
    { BLLatest: '1.0', latestVersion: '2.0', Description: 'old', description: 'new', BLNewVersionDescription: 'o', newVersionDescription: 'n', Beta: 'old', beta: 'new' },
    async (site) => {
      const body = await (await fetch(site.url + '/api/info')).json();
      assert.is(body.latestVersion, '2.0');
      assert.is(body.description, 'new');
      assert.is(body.newVersionDescription, 'n');
      assert.is(body.beta, 'new');
    },
  ));

test('missing info keys are null', () =>
  withSite({ latestVersion: '1.0' }, async (site) => {
    const body = await (await fetch(site.url + '/api/info')).json();
    assert.equal(Object.keys(body), INFO_KEYS);
    assert.is(body.description, null);
    assert.is(body.activity, null);
  }));

for (const path of ['/api/info', '/api/fastdownload']) {
  test(`${path}: strong ETag, Cache-Control, 304 on If-None-Match, HEAD`, () =>
    withSite(FULL, async (site) => {
      const first = await fetch(site.url + path);
      const etag = first.headers.get('etag');
      const bytes = Buffer.from(await first.arrayBuffer());
      assert.ok(etag && /^"[^"]+"$/.test(etag), `strong ETag, got ${etag}`);
      assert.is(first.headers.get('cache-control'), 'public, max-age=60');
      assert.is(first.headers.get('content-length'), String(bytes.length));

      const again = await fetch(site.url + path);
      assert.is(again.headers.get('etag'), etag, 'same version, same ETag');

      for (const ifNoneMatch of [etag!, `"other", ${etag}`, `W/${etag}`, '*']) {
        const cached = await fetch(site.url + path, { headers: { 'If-None-Match': ifNoneMatch } });
        assert.is(cached.status, 304, `If-None-Match: ${ifNoneMatch}`);
        assert.is(cached.headers.get('etag'), etag);
        assert.is(cached.headers.get('cache-control'), 'public, max-age=60');
        assert.is((await cached.arrayBuffer()).byteLength, 0);
      }
      const stale = await fetch(site.url + path, { headers: { 'If-None-Match': '"not-it"' } });
      assert.is(stale.status, 200);
      assert.equal(Buffer.from(await stale.arrayBuffer()), bytes);

      const head = await fetch(site.url + path, { method: 'HEAD' });
      assert.is(head.status, 200);
      assert.is(head.headers.get('etag'), etag);
      assert.is(head.headers.get('content-length'), String(bytes.length));
      assert.is((await head.arrayBuffer()).byteLength, 0);
    }));
}

test('info and fastdownload have separate ETags', () =>
  withSite(FULL, async (site) => {
    const info = await fetch(site.url + '/api/info');
    const fast = await fetch(site.url + '/api/fastdownload');
    assert.is.not(info.headers.get('etag'), fast.headers.get('etag'));
  }));

test('other methods get 405 METHOD_NOT_ALLOWED with Allow', () =>
  withSite(FULL, async (site) => {
    for (const path of ['/api/info', '/api/fastdownload']) {
      const res = await fetch(site.url + path, { method: 'POST' });
      assert.is(res.status, 405);
      assert.match(res.headers.get('allow') ?? '', /GET/);
      const body = await res.json();
      assert.is(body.success, false);
      assert.is(body.code, 'METHOD_NOT_ALLOWED');
    }
  }));

test('no file: info is 500 INTERNAL in the envelope, without the file path', () =>
  withSite(undefined, async (site) => {
    const res = await fetch(site.url + '/api/info');
    assert.is(res.status, 500);
    assert.is(res.headers.get('etag'), null);
    const text = await res.text();
    const body = JSON.parse(text);
    assert.is(body.success, false);
    assert.is(body.code, 'INTERNAL');
    assert.type(body.error, 'string');
    assert.not.match(text, /launcher\.json/);
  }));

test('no file: fastdownload is {success: true, enabled: false, versions: []}', () =>
  withSite(undefined, async (site) => {
    const res = await fetch(site.url + '/api/fastdownload');
    assert.is(res.status, 200);
    assert.equal(await res.json(), { success: true, enabled: false, versions: [] });
  }));

test('file without a fastdownload key: fastdownload is disabled and empty', () =>
  withSite({ latestVersion: '1.0' }, async (site) => {
    assert.equal(await (await fetch(site.url + '/api/fastdownload')).json(), { success: true, enabled: false, versions: [] });
  }));

test('malformed fastdownload (enabled not a boolean) is served as absent', () =>
  withSite({ fastdownload: { enabled: 'true', versions: [{ version: '1' }] } }, async (site) => {
    assert.equal(await (await fetch(site.url + '/api/fastdownload')).json(), { success: true, enabled: false, versions: [] });
  }));

test('a file that never parsed: info 500 INTERNAL, fastdownload disabled', () =>
  withSite('{"latestVersion": ', async (site) => {
    const info = await fetch(site.url + '/api/info');
    assert.is(info.status, 500);
    assert.is((await info.json()).code, 'INTERNAL');
    assert.equal(await (await fetch(site.url + '/api/fastdownload')).json(), { success: true, enabled: false, versions: [] });
  }));

test('a folder where the file should be: info 500 INTERNAL, no crash', async () => {
  const dir = tempDir();
  const site = await startTestSite({ LAUNCHER_CONFIG: dir });
  try {
    const res = await fetch(site.url + '/api/info');
    assert.is(res.status, 500);
    assert.is((await res.json()).code, 'INTERNAL');
  } finally {
    await site.close();
  }
});

test.run();
