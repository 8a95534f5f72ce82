// Media upload with an API token, through both real services: media:upload lets
// it through, a token without that scope is 403 before the body is read.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePng } from '../../../fixtures/images/generate.js';
import { testSessionCookie } from '../../../helpers/fake-idp.js';
import { uploadThroughSite } from '../../../helpers/media.js';
import { closeTestSql, startTestImghost, startTestSite, testSql, type TestServer } from '../../../helpers/servers.js';
import { newToken, tokenClient } from './token-client.js';

let imghost: TestServer;
let site: TestServer;

test.before(async () => {
  imghost = await startTestImghost();
  site = await startTestSite({ IMAGE_HOST_URL: imghost.url });
});
test.after(async () => {
  await site.close();
  await imghost.close();
  await closeTestSql();
});

const rows = [
  { what: 'media:upload', scopes: ['media:upload'], status: 200 },
  { what: 'both scopes', scopes: ['plugins:write', 'media:upload'], status: 200 },
  { what: 'plugins:write only', scopes: ['plugins:write'], status: 403 },
];
for (const row of rows) {
  test(`POST /apps/api/media/upload with a token of ${row.what} -> ${row.status}`, async () => {
    const cookie = await testSessionCookie(testSql(), `uploader-${row.scopes.length}-${row.status}`);
    const { secret } = await newToken(tokenClient(site.url), cookie, { scopes: row.scopes });
    const answer = await uploadThroughSite(site.url, undefined, await makePng(row.status + row.scopes.length), 'shot.png', { authorization: `Bearer ${secret}` });
    assert.is(answer.status, row.status, JSON.stringify(answer.body));
    if (row.status === 200) {
      const url: string = (answer.body as any).data.url;
      assert.ok(url.startsWith(imghost.url + '/img/'), url);
    }
    else assert.is((answer.body as any).code, 'FORBIDDEN');
  });
}

test('POST /apps/api/media/upload with a bad token -> 401 UNAUTHORIZED', async () => {
  const answer = await uploadThroughSite(site.url, undefined, await makePng(9), 'shot.png', { authorization: 'Bearer lwt_nope' });
  assert.is(answer.status, 401);
  assert.is((answer.body as any).code, 'UNAUTHORIZED');
});

test.run();
